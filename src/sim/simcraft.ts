/**
 * simcraft: a small program that behaves like a Paper Minecraft server, so Cairn runs and tests
 * real processes on real ports without the internet.
 *
 * Run in the server's directory: `node simcraft.js [--version 1.21.4]`. It reads `server.properties`
 * (`server-port`, default 25565; `server-ip`, empty means every interface; `max-players`, default 20),
 * reads `plugins/*.jar` (paper-plugin.yml or plugin.yml), listens on the port (greeting every
 * plain TCP player with `Simcraft <version> on port <port>: <motd>`; a Minecraft client's status
 * ping is answered with the players online, and its login gets Login Success and makes it a
 * player under its login name until it closes: player-listener.ts), prints Paper-like
 * lines ending `Done (<t>s)! For help, type "help"`, then takes console commands on stdin:
 * `say <text>`, `list`, `help`, `stop` (saves, frees the port, exits 0), `crash` (exits 1 at once),
 * and Minecraft's save commands: `save-off` and `save-on` (automatic saves stop and resume),
 * `save-all [flush]` (prints `Saving the game (this may take a moment!)`, writes the world, then
 * prints `Saved the game`). Its world is `world/` (see world.ts); `world/version.txt` names the
 * version that last ran it, and an older version refuses it (`Failed to load world: saved by newer
 * version <v>`, exit 1). A version ending `-crash` (`1.21.4-crash`) exits 1 before `Done`, a test
 * version for failed updates. SIGTERM and SIGINT stop it like `stop`. A port it cannot bind makes it exit 1.
 *
 * Test hooks for containment (see debug-hooks.ts), each answering with `[Debug] ...` lines:
 * `whoami` (`uid=<uid> gid=<gid>`), `readfile <path>` (`readfile <path>: ok <size> bytes` or
 * `: error <CODE>`), `alloc <MiB>` (allocates and keeps that much memory, printing
 * `allocated <N> MiB` every 64 MiB and at the end) and `spin <seconds> [threads]` (keeps that many
 * threads busy, printing `spinning <threads> thread(s) for <seconds> s`, then `spin done`).
 *
 * Test knobs, in milliseconds. Each is read from the environment, or from server.properties (which
 * wins, so a test can set it per server through the files API):
 *   SIMCRAFT_STARTUP_DELAY_MS / simcraft-startup-delay-ms  time spent preparing the level before Done
 *   SIMCRAFT_STOP_DELAY_MS    / simcraft-stop-delay-ms     time spent saving on stop before exiting
 *   SIMCRAFT_CRASH_AFTER_MS   / simcraft-crash-after-ms    exit 1 this long after Done (a crash loop)
 *   SIMCRAFT_AUTOSAVE_MS      / simcraft-autosave-ms       automatic save interval (default 5 minutes, as
 *                                                           Minecraft's 6,000 ticks; 0 never saves by itself)
 */
import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { readCommands } from './command-input.js';
import { stdoutLog } from './console-log.js';
import { debugCommand, debugHelp } from './debug-hooks.js';
import { PlayerListener } from './player-listener.js';
import { simcraftProtocol } from './minecraft-answers.js';
import { loadPlugins } from './plugin-loader.js';
import type { PluginDescriptor } from './plugin-descriptor.js';
import { installCrashHandlers } from '../shared/crash-handlers.js';
import { PropertiesFile } from '../shared/properties-file.js';
import { World } from './world.js';
import { WorldTooNewError } from './world-version.js';

// An error nothing caught: one JSON line on stderr (the console, to the Agent), then exit 1, a crash.
installCrashHandlers('simcraft');

const log = stdoutLog();

async function readServerProperties(): Promise<Map<string, string>> {
  try {
    return new Map(Object.entries(PropertiesFile.parse(await readFile('server.properties', 'utf8')).values()));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    log.warn('server.properties does not exist, using defaults');
    return new Map();
  }
}

function numberSetting(props: Map<string, string>, key: string, env: string | undefined, fallback: number): number {
  const raw = props.get(key) ?? env;
  const n = raw === undefined || raw.trim() === '' ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${key}: not a whole number: ${JSON.stringify(raw)}`);
  return n;
}

const { values: args } = parseArgs({ options: { version: { type: 'string' } }, strict: true });
const version = args.version ?? '1.21.4';
const players = new PlayerListener(log);
const world = new World(version);
let plugins: PluginDescriptor[] = [];
let stopping = false;
let stopDelayMs = 0;

async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info('Stopping the server');
  log.info('Stopping server');
  for (const p of [...plugins].reverse()) log.info(`[${p.name}] Disabling ${p.name} v${p.version}`);
  log.info('Saving players');
  log.info('Saving worlds');
  await world.save().catch((error: unknown) => log.error(`Failed to save the world: ${(error as Error).message}`));
  await delay(stopDelayMs);
  log.info("Saving chunks for level 'ServerLevel[world]'/minecraft:overworld");
  log.info('ThreadedAnvilChunkStorage (world): All chunks are saved');
  log.info('ThreadedAnvilChunkStorage: All dimensions are saved');
  await players.close();
  process.exit(0);
}

function crash(reason: string): never {
  log.error(`Encountered an unexpected exception: ${reason}`);
  process.exit(1);
}

function command(line: string, maxPlayers: number): void {
  const [verb, ...rest] = line.replace(/^\//, '').split(' ');
  const text = rest.join(' ').trim();
  switch (verb.toLowerCase()) {
    case 'say':
      if (text === '') log.info('Usage: /say <message>');
      else log.info(`[Server] ${text}`);
      return;
    case 'fakeplayers': {
      // A test hook: the Server List Ping reports this many players online (any whole number), `fakeplayers off` the connections again.
      const n = Number(text);
      players.fakeOnline = text === 'off' ? undefined : Number.isInteger(n) && n >= 0 ? n : players.fakeOnline;
      log.info(text === 'off' || (Number.isInteger(n) && n >= 0) ? `Players online reported: ${players.fakeOnline ?? 'the connected players'}` : 'Usage: /fakeplayers <n>|off');
      return;
    }
    case 'list': {
      const names = players.names();
      log.info(`There are ${names.length} of a max of ${maxPlayers} players online: ${names.join(', ')}`);
      return;
    }
    case 'help':
      for (const l of [
        '--------- Help: Index ---------------------------',
        '/crash: Exits at once with status 1 (a test hook)',
        '/fakeplayers <n>|off: The players online the Server List Ping reports (a test hook)',
        '/help: Shows this list',
        '/list: Lists the players online',
        '/save-all [flush]: Saves the world now',
        '/save-off: Turns automatic saving off',
        '/save-on: Turns automatic saving on',
        '/say <message>: Broadcasts a message',
        '/stop: Saves and stops the server',
        ...debugHelp,
      ]) log.info(l);
      return;
    case 'save-off':
      log.info(world.disable() ? 'Automatic saving is now disabled' : 'Saving is already turned off');
      return;
    case 'save-on':
      log.info(world.enable() ? 'Automatic saving is now enabled' : 'Saving is already turned on');
      return;
    case 'save-all':
      log.info('Saving the game (this may take a moment!)');
      world.save().then(() => log.info('Saved the game'), (error: unknown) => log.error(`Failed to save the game: ${(error as Error).message}`));
      return;
    case 'stop':
      void stop();
      return;
    case 'crash':
      return process.exit(1);
    default:
      if (!debugCommand(verb.toLowerCase(), rest, log)) log.info('Unknown command. Type "help" for help.');
  }
}

async function main(): Promise<void> {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void stop());
  log.info(`Starting minecraft server version ${version}`);
  log.info('Loading properties');
  const props = await readServerProperties();
  const port = numberSetting(props, 'server-port', undefined, 25565);
  const host = props.get('server-ip')?.trim() || undefined;
  const maxPlayers = numberSetting(props, 'max-players', undefined, 20);
  const startupDelayMs = numberSetting(props, 'simcraft-startup-delay-ms', process.env.SIMCRAFT_STARTUP_DELAY_MS, 0);
  const crashAfterMs = numberSetting(props, 'simcraft-crash-after-ms', process.env.SIMCRAFT_CRASH_AFTER_MS, 0);
  stopDelayMs = numberSetting(props, 'simcraft-stop-delay-ms', process.env.SIMCRAFT_STOP_DELAY_MS, 0);
  const autosaveMs = numberSetting(props, 'simcraft-autosave-ms', process.env.SIMCRAFT_AUTOSAVE_MS, 300_000);
  log.info(`This server is running Simcraft version ${version}-sim (MC: ${version}) (Implementing API version ${version}-R0.1-SNAPSHOT)`);
  plugins = await loadPlugins(process.cwd(), log);
  log.info('Default game type: SURVIVAL');
  log.info('Generating keypair');
  log.info(`Starting Minecraft server on ${host ?? '*'}:${port}`);
  try {
    const motd = props.get('motd') ?? 'A Minecraft Server';
    await players.listen(port, host, `Simcraft ${version} on port ${port}: ${motd}`, (online) => ({ version: `Simcraft ${version}`, protocol: simcraftProtocol, max: maxPlayers, online, motd }));
  } catch (error) {
    log.warn('**** FAILED TO BIND TO PORT!');
    log.warn(`The exception was: ${(error as Error).message}`);
    log.warn('Perhaps a server is already running on that port?');
    process.exit(1);
  }
  log.info('Preparing level "world"');
  // A test version for failed updates: it dies before Done and before it touches the world.
  if (version.endsWith('-crash')) crash(`simcraft ${version} always fails to start`);
  const levelStart = performance.now();
  try {
    await world.prepare();
  } catch (error) {
    if (!(error instanceof WorldTooNewError)) throw error;
    log.error(error.message);
    process.exit(1);
  }
  await delay(startupDelayMs);
  log.info('Preparing start region for dimension minecraft:overworld');
  log.info(`Time elapsed: ${Math.round(performance.now() - levelStart)} ms`);
  for (const p of plugins) log.info(`[${p.name}] Enabling ${p.name} v${p.version}`);
  if (stopping) return;
  // performance.now() counts from the process's start, as a real server's startup time does.
  log.info(`Done (${(performance.now() / 1000).toFixed(3)}s)! For help, type "help"`);
  readCommands((line) => command(line, maxPlayers));
  world.autosave(autosaveMs);
  if (crashAfterMs > 0) setTimeout(() => crash(`simcraft-crash-after-ms elapsed (${crashAfterMs} ms)`), crashAfterMs);
}

main().catch((error: unknown) => {
  log.error(`Failed to start the minecraft server: ${(error as Error).message}`);
  process.exit(1);
});
