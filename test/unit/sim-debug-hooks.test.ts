import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConsoleLog } from '../../src/sim/console-log.js';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { allocSteps, debugCommand, parseMiB, parseSpin, readfile, spin, whoami } from '../../src/sim/debug-hooks.js';
import { bind, connect, parsePort } from '../../src/sim/net-hooks.js';

function recordingLog(): ConsoleLog & { lines: string[] } {
  const lines: string[] = [];
  const push = (m: string) => void lines.push(m);
  return { lines, info: push, warn: push, error: push };
}

describe('simcraft debug hooks', () => {
  it('whoami prints the process uid and gid', () => {
    const log = recordingLog();
    whoami(log);
    expect(log.lines).to.deep.equal([`[Debug] uid=${process.getuid!()} gid=${process.getgid!()}`]);
  });

  describe('readfile', () => {
    let dir: string;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'cairn-debug-hooks-'));
      await writeFile(join(dir, 'five.txt'), 'hello');
    });
    after(() => rm(dir, { recursive: true, force: true }));

    it('prints the size of a file it can read', async () => {
      const log = recordingLog();
      await readfile(join(dir, 'five.txt'), log);
      expect(log.lines).to.deep.equal([`[Debug] readfile ${join(dir, 'five.txt')}: ok 5 bytes`]);
    });

    it('prints the error code of a file it cannot read', async () => {
      const log = recordingLog();
      await readfile(join(dir, 'missing'), log);
      await readfile(dir, log);
      expect(log.lines).to.deep.equal([`[Debug] readfile ${join(dir, 'missing')}: error ENOENT`, `[Debug] readfile ${dir}: error EISDIR`]);
    });
  });

  it('alloc takes a whole number of MiB and works in 64 MiB steps with the remainder last', () => {
    expect(parseMiB('64')).to.equal(64);
    for (const bad of [undefined, '', '0', '-1', '1.5', '1e3', 'ten']) expect(parseMiB(bad), String(bad)).to.equal(undefined);
    expect(allocSteps(64)).to.deep.equal([64]);
    expect(allocSteps(150)).to.deep.equal([64, 64, 22]);
    expect(allocSteps(10)).to.deep.equal([10]);
  });

  it('spin takes seconds and an optional thread count within bounds', () => {
    expect(parseSpin(['1'])).to.deep.equal({ seconds: 1, threads: 1 });
    expect(parseSpin(['0.5', '2'])).to.deep.equal({ seconds: 0.5, threads: 2 });
    for (const bad of [[], ['0'], ['x'], ['1', '0'], ['1', '65'], ['1', '1.5'], ['3601'], ['1', '2', '3']]) {
      expect(parseSpin(bad), bad.join(' ')).to.equal(undefined);
    }
  });

  it('spin runs its threads for the time asked, then says it is done', async () => {
    const log = recordingLog();
    const started = Date.now();
    await spin({ seconds: 0.2, threads: 2 }, log);
    expect(Date.now() - started).to.be.at.least(190);
    expect(log.lines).to.deep.equal(['[Debug] spinning 2 thread(s) for 0.2 s', '[Debug] spin done']);
  });

  it('answers usage for bad arguments and leaves other verbs alone', () => {
    const log = recordingLog();
    expect(debugCommand('alloc', ['lots'], log)).to.equal(true);
    expect(debugCommand('spin', [], log)).to.equal(true);
    expect(debugCommand('readfile', [], log)).to.equal(true);
    expect(debugCommand('connect', ['127.0.0.1'], log)).to.equal(true);
    expect(debugCommand('bind', ['0'], log)).to.equal(true);
    expect(debugCommand('say', ['hi'], log)).to.equal(false);
    expect(log.lines.map((l) => /^\[Debug\] usage: (\w+)/.exec(l)?.[1])).to.deep.equal(['alloc', 'spin', 'readfile', 'connect', 'bind']);
  });

  describe('connect and bind', () => {
    it('takes ports 1..65535 only', () => {
      expect(parsePort('40123')).to.equal(40123);
      for (const bad of [undefined, '', '0', '65536', '-1', '1.5', 'x']) expect(parsePort(bad), String(bad)).to.equal(undefined);
    });

    it('connect says ok for a listener and the error code for a closed port', async () => {
      const server = createServer((s) => s.end());
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const { port } = server.address() as AddressInfo;
      const log = recordingLog();
      await connect('127.0.0.1', port, log);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await connect('127.0.0.1', port, log);
      expect(log.lines).to.deep.equal([`[Debug] connect 127.0.0.1:${port}: ok`, `[Debug] connect 127.0.0.1:${port}: error ECONNREFUSED`]);
    });

    it('bind keeps the port, and a second bind of it says EADDRINUSE', async () => {
      const probe = createServer();
      probe.listen(0, '0.0.0.0');
      await once(probe, 'listening');
      const { port } = probe.address() as AddressInfo;
      await new Promise<void>((resolve) => probe.close(() => resolve()));
      const log = recordingLog();
      await bind(port, log);
      await bind(port, log);
      await connect('127.0.0.1', port, log);
      expect(log.lines).to.deep.equal([`[Debug] bind ${port}: ok`, `[Debug] bind ${port}: error EADDRINUSE`, `[Debug] connect 127.0.0.1:${port}: ok`]);
    });
  });
});
