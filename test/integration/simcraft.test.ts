import { expect } from 'chai';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import mc from 'minecraft-protocol';
import yazl from 'yazl';
import { builtinLauncherSource } from '../../src/shared/programs.js';
import { handshake, login, statusPing, stringAt, GameClient } from '../support/minecraft-client.js';
import { freePort, SimProcess, simSource } from '../support/sim-process.js';
import { waitFor } from '../support/wait-for.js';

async function writeJar(path: string, entries: Record<string, string>): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, text] of Object.entries(entries)) zip.addBuffer(Buffer.from(text), name);
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(path));
}

async function serverDir(port: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-simcraft-'));
  await writeFile(join(dir, 'server.properties'), `# written by the test\nserver-port=${port}\nserver-ip=127.0.0.1\nmotd=A test\\u0021\n`);
  return dir;
}

async function tcpConnect(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  return socket;
}

const ready = /Done \(.*\)! For help, type "help"/;

describe('simcraft: the simulated Minecraft server', () => {
  const dirs: string[] = [];
  const processes: SimProcess[] = [];
  const start = (dir: string, script = simSource('simcraft'), args: string[] = []) => {
    const p = SimProcess.start(script, args, dir);
    processes.push(p);
    return p;
  };
  const newDir = async (port: number) => {
    const dir = await serverDir(port);
    dirs.push(dir);
    return dir;
  };

  after(async () => {
    await Promise.all(processes.map((p) => p.kill()));
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  describe('a running server with plugins', () => {
    let port: number;
    let sim: SimProcess;
    let player: Socket | undefined;

    before(async () => {
      port = await freePort();
      const dir = await newDir(port);
      await mkdir(join(dir, 'plugins'));
      await writeJar(join(dir, 'plugins', 'alpha.jar'), { 'plugin.yml': 'name: Alpha\nversion: 1.0\nmain: example.Alpha\n', 'example/Alpha.class': 'x' });
      await writeJar(join(dir, 'plugins', 'beta.jar'), { 'paper-plugin.yml': 'name: Beta\nversion: 2.10\nmain: example.Beta\napi-version: "1.21"\n' });
      await writeJar(join(dir, 'plugins', 'empty.jar'), { 'README.txt': 'no descriptor here' });
      await writeFile(join(dir, 'plugins', 'garbage.jar'), 'not a zip at all');
      await writeJar(join(dir, 'plugins', 'nameless.jar'), { 'plugin.yml': 'version: 1\n' });
      sim = start(dir);
      await sim.waitForLine(ready);
    });
    after(() => player?.destroy());

    it('prints Paper-like timestamped startup lines and enables every plugin with its declared version text', () => {
      expect(sim.lines[0]).to.match(/^\[\d\d:\d\d:\d\d INFO\]: Starting minecraft server version 1\.21\.4$/);
      const enabling = sim.lines.filter((l) => l.includes('Enabling'));
      expect(enabling).to.have.length(2);
      expect(enabling[0]).to.match(/\[Alpha\] Enabling Alpha v1\.0$/);
      expect(enabling[1]).to.match(/\[Beta\] Enabling Beta v2\.10$/);
      expect(sim.lines.findIndex((l) => l.includes('Enabling'))).to.be.lessThan(sim.lines.findIndex((l) => ready.test(l)));
    });

    it('reports a jar without a readable descriptor and still starts', () => {
      const errors = sim.lines.filter((l) => l.includes('ERROR]: Could not load'));
      expect(errors.map((l) => /'plugins\/([^']+)'/.exec(l)?.[1])).to.deep.equal(['empty.jar', 'garbage.jar', 'nameless.jar']);
      expect(errors[2]).to.include('declares no name');
    });

    it('accepts TCP connections on server-port and counts them as players', async () => {
      player = await tcpConnect(port);
      await sim.waitForLine(/Player1 joined the game/);
      expect(await sim.command('list', /There are/)).to.match(/There are 1 of a max of 20 players online: Player1$/);
    });

    it('answers say, help and unknown commands', async () => {
      expect(await sim.command('say hi', /\[Server\]/)).to.match(/INFO\]: \[Server\] hi$/);
      expect(await sim.command('help', /\/stop/)).to.include('/stop');
      expect(await sim.command('frobnicate', /Unknown command/)).to.match(/Unknown command\. Type "help" for help\.$/);
    });

    it('stop saves, disables plugins, exits 0 and frees the port', async () => {
      sim.send('stop');
      expect(await sim.exited).to.equal(0);
      expect(sim.lines.some((l) => l.includes('[Beta] Disabling Beta v2.10'))).to.equal(true);
      expect(sim.lines.some((l) => l.includes('All dimensions are saved'))).to.equal(true);
      const probe = createServer();
      probe.listen(port, '127.0.0.1');
      await once(probe, 'listening');
      await new Promise<void>((resolve) => probe.close(() => resolve()));
    });
  });

  describe('Minecraft clients: the status ping and a real login', () => {
    let port: number;
    let sim: SimProcess;
    const online = async () => ((await statusPing(port)).status as { players: { online: number } }).players.online;

    before(async () => {
      port = await freePort();
      sim = start(await newDir(port));
      await sim.waitForLine(ready);
    });
    after(() => sim.kill());

    it('answers a status ping with the version it claims and nobody online, and counts the ping as no player', async () => {
      const { status, ponged } = await statusPing(port);
      expect(status).to.deep.equal({ version: { name: 'Simcraft 1.21.4', protocol: 769 }, players: { max: 20, online: 0 }, description: { text: 'A test!' } });
      expect(ponged).to.equal(true);
      expect(await sim.command('list', /There are/)).to.match(/There are 0 of a max of 20 players online: $/);
    });

    it('lets a login in with Login Success and counts it as a player under its name until the connection closes', async () => {
      const { client, answer } = await login(port, 'Steve');
      try {
        expect(answer?.id, 'Login Success').to.equal(0x02);
        // The offline-mode UUID of Steve (MD5 of "OfflinePlayer:Steve", version 3), then the name and no properties.
        expect(answer!.data.subarray(0, 16).toString('hex')).to.equal('5627dd98e6be3c21b8a8e92344183641');
        expect(stringAt(answer!, 16)).to.equal('Steve');
        expect(answer!.data.at(-1)).to.equal(0);
        await sim.waitForLine(/Steve joined the game$/);
        expect(await online()).to.equal(1);
        expect(await sim.command('list', /There are/)).to.match(/There are 1 of a max of 20 players online: Steve$/);
        // What a real client sends next (Login Acknowledged) is taken and changes nothing.
        client.send(Buffer.from([0x01, 0x03]));
        expect(await online()).to.equal(1);
      } finally {
        client.destroy();
      }
      await sim.waitForLine(/Steve left the game$/);
      expect(await online()).to.equal(0);
    });

    it('lets a real 1.21.4 client (minecraft-protocol) in: it takes Login Success and goes on to configuration', async () => {
      const client = mc.createClient({ host: '127.0.0.1', port, username: 'Notch', version: '1.21.4', auth: 'offline' });
      try {
        await new Promise<void>((resolve, reject) => {
          // The state after Login Success since 1.20.2 (the library's types predate it).
          client.on('state', (state: string) => {
            if (state === 'configuration') resolve();
          });
          client.once('disconnect', (packet: { reason: string }) => reject(new Error(`disconnected: ${packet.reason}`)));
          client.once('error', reject);
        });
        await waitFor(async () => (await online()) === 1, { what: 'Notch online' });
      } finally {
        client.end();
      }
      await sim.waitForLine(/Notch left the game$/);
    });

    it('closes a handshake that asks for another state, or a login whose name is none, and counts neither', async () => {
      for (const opening of [[handshake(port, 9)], [handshake(port, 2), Buffer.from([0x03, 0x00, 0x01, 0x20])]]) {
        const client = await GameClient.connect(port);
        client.send(...opening);
        expect(await client.next()).to.equal(undefined);
        await client.closed;
      }
      expect(await online()).to.equal(0);
    });
  });

  describe('containment test hooks', () => {
    let dir: string;
    let sim: SimProcess;
    const debugLine = (text: string) => new RegExp(`^\\[\\d\\d:\\d\\d:\\d\\d INFO\\]: \\[Debug\\] ${text}$`);

    before(async () => {
      dir = await newDir(await freePort());
      await writeFile(join(dir, 'eight.txt'), '12345678');
      sim = start(dir);
      await sim.waitForLine(ready);
    });
    after(() => sim.kill());

    it('whoami prints the uid and gid the game runs as', async () => {
      expect(await sim.command('whoami', /\[Debug\] uid=/)).to.match(debugLine(`uid=${process.getuid!()} gid=${process.getgid!()}`));
    });

    it('readfile prints the size of a readable file, relative or absolute, and the error code of a missing one', async () => {
      expect(await sim.command('readfile eight.txt', /\[Debug\] readfile/)).to.match(debugLine('readfile eight\\.txt: ok 8 bytes'));
      expect(await sim.command(`readfile ${join(dir, 'eight.txt')}`, /\[Debug\] readfile/)).to.match(/: ok 8 bytes$/);
      expect(await sim.command('readfile no/such/file', /\[Debug\] readfile/)).to.match(debugLine('readfile no/such/file: error ENOENT'));
    });

    it('alloc 64 allocates and reports 64 MiB, and the console still answers', async () => {
      expect(await sim.command('alloc 64', /\[Debug\] allocated/)).to.match(debugLine('allocated 64 MiB'));
      expect(await sim.command('say still here', /\[Server\]/)).to.match(/\[Server\] still here$/);
    });

    it('spin 1 2 keeps two threads busy for a second, answering the console meanwhile', async () => {
      const from = sim.lines.length;
      expect(await sim.command('spin 1 2', /\[Debug\] spinning/)).to.match(debugLine('spinning 2 thread\\(s\\) for 1 s'));
      expect(await sim.command('say busy', /\[Server\]/)).to.match(/\[Server\] busy$/);
      await sim.waitForLine(/\[Debug\] spin done$/, 8000, from);
    });
  });

  describe('saving the world', () => {
    let dir: string;
    let sim: SimProcess;
    const saves = async () => (JSON.parse(await readFile(join(dir, 'world', 'level.dat'), 'utf8')) as { saves: number }).saves;

    before(async () => {
      dir = await newDir(await freePort());
      await writeFile(join(dir, 'server.properties'), 'simcraft-autosave-ms=40\n', { flag: 'a' });
      sim = start(dir);
      await sim.waitForLine(ready);
    });

    it('creates world/ with a region file and saves level.dat by itself', async () => {
      expect((await stat(join(dir, 'world', 'region', 'r.0.0.mca'))).size).to.equal(64 * 1024);
      await waitFor(async () => (await saves().catch(() => 0)) >= 2, { what: 'two automatic saves' });
    });

    it('save-off stops automatic saves, save-all still saves and prints when done, save-on resumes them', async () => {
      expect(await sim.command('save-off', /saving/i)).to.match(/INFO\]: Automatic saving is now disabled$/);
      expect(await sim.command('save-off', /saving/i)).to.match(/Saving is already turned off$/);
      const from = sim.lines.length;
      sim.send('save-all flush');
      await sim.waitForLine(/Saved the game$/, 8000, from);
      const printed = sim.lines.slice(from);
      expect(printed.findIndex((l) => l.endsWith('Saving the game (this may take a moment!)'))).to.be.lessThan(printed.findIndex((l) => l.endsWith('Saved the game')));
      const held = await saves();
      // Automatic saves come every 40 ms while on: ten intervals without one show they stopped.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await saves()).to.equal(held);
      expect(await sim.command('save-on', /saving/i)).to.match(/Automatic saving is now enabled$/);
      await waitFor(async () => (await saves()) > held, { what: 'automatic saves again' });
    });

    it('keeps counting saves across runs in the same directory', async () => {
      sim.send('stop');
      expect(await sim.exited).to.equal(0);
      const before = await saves();
      const again = start(dir);
      await again.waitForLine(ready);
      await again.command('save-all', /Saved the game$/);
      expect(await saves()).to.be.greaterThan(before);
      again.send('stop');
      expect(await again.exited).to.equal(0);
    });
  });

  it('exits 1 at once on crash', async () => {
    const sim = start(await newDir(await freePort()));
    await sim.waitForLine(ready);
    sim.send('crash');
    expect(await sim.exited).to.equal(1);
  });

  it('stops on SIGTERM like stop', async () => {
    const sim = start(await newDir(await freePort()));
    await sim.waitForLine(ready);
    sim.child.kill('SIGTERM');
    expect(await sim.exited).to.equal(0);
    expect(sim.lines.some((l) => l.includes('Saving worlds'))).to.equal(true);
  });

  it('exits 1 when its port is taken', async () => {
    const port = await freePort();
    const holder = createServer();
    holder.listen(port, '127.0.0.1');
    await once(holder, 'listening');
    try {
      const sim = start(await newDir(port));
      expect(await sim.exited).to.equal(1);
      expect(sim.lines.some((l) => l.includes('FAILED TO BIND TO PORT'))).to.equal(true);
    } finally {
      holder.close();
    }
  });

  it('runs from the launcher an Agent writes into .cairn, with the version from the command line', async () => {
    const port = await freePort();
    const dir = await newDir(port);
    await mkdir(join(dir, '.cairn'));
    await writeFile(join(dir, '.cairn', 'simcraft.mjs'), builtinLauncherSource('simcraft'));
    const sim = start(dir, join(dir, '.cairn', 'simcraft.mjs'), ['--version', '1.20.6']);
    await sim.waitForLine(ready);
    expect(sim.lines[0]).to.match(/Starting minecraft server version 1\.20\.6$/);
    (await tcpConnect(port)).destroy();
    sim.send('stop');
    expect(await sim.exited).to.equal(0);
  });

  describe('its world format', () => {
    const run = async (dir: string, version: string) => start(dir, simSource('simcraft'), ['--version', version]);

    it('writes world/version.txt with the version it ran, and a newer version takes the world over', async () => {
      const port = await freePort();
      const dir = await newDir(port);
      const old = await run(dir, '1.21.1');
      await old.waitForLine(ready);
      expect(await readFile(join(dir, 'world', 'version.txt'), 'utf8')).to.equal('1.21.1\n');
      old.send('stop');
      expect(await old.exited).to.equal(0);
      const next = await run(dir, '1.21.4');
      await next.waitForLine(ready);
      expect(await readFile(join(dir, 'world', 'version.txt'), 'utf8')).to.equal('1.21.4\n');
      next.send('stop');
      expect(await next.exited).to.equal(0);
    });

    it('refuses a world a newer version saved, and leaves it as it was', async () => {
      const port = await freePort();
      const dir = await newDir(port);
      await mkdir(join(dir, 'world'), { recursive: true });
      await writeFile(join(dir, 'world', 'version.txt'), '1.21.4\n');
      const sim = await run(dir, '1.20.6');
      expect(await sim.exited).to.equal(1);
      expect(sim.lines.some((l) => /Failed to load world: saved by newer version 1\.21\.4$/.test(l))).to.equal(true);
      expect(sim.lines.some((l) => ready.test(l))).to.equal(false);
      expect(await readFile(join(dir, 'world', 'version.txt'), 'utf8')).to.equal('1.21.4\n');
    });

    it('1.21.4-crash exits 1 before Done, without touching the world', async () => {
      const port = await freePort();
      const dir = await newDir(port);
      const sim = await run(dir, '1.21.4-crash');
      expect(await sim.exited).to.equal(1);
      expect(sim.lines.some((l) => ready.test(l))).to.equal(false);
      expect(await stat(join(dir, 'world', 'version.txt')).then(() => true, () => false)).to.equal(false);
    });
  });
});
