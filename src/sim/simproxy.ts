/**
 * simproxy: a small TCP proxy that stands in for Velocity in a Cairn network, offline.
 *
 * Run in the proxy's server directory: `node simproxy.js [--config simproxy.json] [--version 3.4.0]`.
 * The config file (`src/shared/simproxy-config.ts`) is
 *   {"bind"?: "0.0.0.0", "port": 25577, "routes": [{"serverId", "name", "address", "port"}], "lobbyServerId"?: "..."}
 * Each new connection tries the lobby route first (when it is among the routes), then the others in
 * the file's order, and goes to the first that accepts it; with no route at all, or none
 * accepting, it is closed. The file is re-read when
 * it changes (fs.watch, stat polling) and on SIGHUP: routes apply to new connections at once, a bad
 * file is reported and the last good routes stay, `bind` and `port` apply at the next start.
 * Prints Velocity-like lines ending `Done (<t>s)! Listening on <host>:<port>`. Console: `end` (or
 * `shutdown`) closes everything and exits 0; `routes`; `help`. SIGTERM and SIGINT act like `end`.
 * A missing or bad config file, or a port it cannot bind, makes it exit 1.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { installCrashHandlers } from '../shared/crash-handlers.js';
import { simproxyConfigFileName, type SimproxyConfigSpec } from '../shared/simproxy-config.js';
import { readCommands } from './command-input.js';
import { stdoutLog } from './console-log.js';
import { watchConfigFile } from './file-watch.js';
import { readProxyConfig, routeOrder } from './proxy-config.js';
import { TcpForwarder } from './tcp-forwarder.js';

// An error nothing caught: one JSON line on stderr (the console, to the Agent), then exit 1, a crash.
installCrashHandlers('simproxy');

const log = stdoutLog();
const { values: args } = parseArgs({ options: { config: { type: 'string' }, version: { type: 'string' } }, strict: true });
const configPath = resolve(args.config ?? simproxyConfigFileName);
const version = args.version ?? '3.4.0';

let current: { config: SimproxyConfigSpec; text: string };
const forwarder = new TcpForwarder(log, () => routeOrder(current.config));
let stopWatching = () => {};
let ending = false;

function describeRoutes(config: SimproxyConfigSpec): string {
  const target = routeOrder(config).at(0);
  const lobby = target ? `; new players go to ${target.name} (${target.address}:${target.port})` : '; no server to send players to';
  return `${config.routes.length} route${config.routes.length === 1 ? '' : 's'}${lobby}`;
}

async function reload(): Promise<void> {
  try {
    const next = await readProxyConfig(configPath);
    if (next.text === current.text) return;
    if (next.config.port !== current.config.port || next.config.bind !== current.config.bind) {
      log.warn('bind and port changes apply at the next start');
    }
    current = next;
    log.info(`Routes reloaded: ${describeRoutes(current.config)}`);
  } catch (error) {
    log.error(`Keeping the current routes: ${(error as Error).message}`);
  }
}

async function end(): Promise<void> {
  if (ending) return;
  ending = true;
  log.info('Shutting down the proxy...');
  stopWatching();
  await forwarder.close();
  log.info('Closed all connections');
  process.exit(0);
}

function command(line: string): void {
  switch (line.replace(/^\//, '').split(' ')[0].toLowerCase()) {
    case 'end':
    case 'shutdown':
      void end();
      return;
    case 'routes':
      for (const r of current.config.routes) log.info(`${r.name} (${r.serverId}) -> ${r.address}:${r.port}`);
      log.info(describeRoutes(current.config));
      return;
    case 'help':
      log.info('Commands: end (or shutdown): stop the proxy; routes: show where players go; help');
      return;
    default:
      log.info('Unknown command. Type "help" for help.');
  }
}

async function main(): Promise<void> {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void end());
  log.info(`Booting up Simproxy ${version}-sim...`);
  current = await readProxyConfig(configPath);
  log.info(`Loaded ${describeRoutes(current.config)}`);
  const bound = await forwarder.listen(current.config.port, current.config.bind);
  const where = `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`;
  log.info(`Listening on /${where}`);
  stopWatching = watchConfigFile(configPath, log, () => void reload());
  log.info(`Done (${(performance.now() / 1000).toFixed(3)}s)! Listening on ${where}`);
  readCommands(command);
}

main().catch((error: unknown) => {
  log.error(`Failed to start the proxy: ${(error as Error).message}`);
  process.exit(1);
});
