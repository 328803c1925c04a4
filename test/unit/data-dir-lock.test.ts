import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { refusePortInUse } from '../../src/controller/program/port-in-use.js';
import { DataDirLockedError, lockDataDir, lockFileOf, type DataDirLock } from '../../src/shared/data-dir-lock.js';
import { readProcStat } from '../../src/shared/proc-stat.js';
import { StartRefusedError } from '../../src/shared/program-config.js';

describe('the data dir lock (one Controller or Agent per data dir)', () => {
  let dir: string;
  let warnings: object[];
  const held: DataDirLock[] = [];
  const logger = { warn: (fields: object) => void warnings.push(fields) };
  const lock = async (dataDir = dir, program = 'Controller') => {
    const taken = await lockDataDir(dataDir, { program, logger });
    held.push(taken);
    return taken;
  };
  const ownStartTicks = async () => (await readProcStat(process.pid))!.startTicks;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-lock-'));
    warnings = [];
  });
  afterEach(async () => {
    for (const taken of held.splice(0)) taken.release();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates the data dir and a 0600 lock naming this process and its start time, and nothing else', async () => {
    const dataDir = join(dir, 'data');
    await lock(dataDir);
    expect((await stat(lockFileOf(dataDir))).mode & 0o777).to.equal(0o600);
    expect(JSON.parse(await readFile(lockFileOf(dataDir), 'utf8'))).to.deep.equal({ pid: process.pid, startTicks: await ownStartTicks() });
    expect(await readdir(dataDir)).to.deep.equal(['lock']);
    expect(warnings).to.deep.equal([]);
  });

  it('refuses while a live process holds it, naming that process', async () => {
    await lock(dir, 'Agent');
    const refused = await lockDataDir(dir, { program: 'Agent', logger }).then(() => null, (e: unknown) => e);
    expect(refused).to.be.instanceOf(DataDirLockedError).and.instanceOf(StartRefusedError);
    expect((refused as Error).message).to.equal(`another Agent (pid ${process.pid}) is using ${dir}`);
  });

  it('replaces a lock left by a process that is gone, and says so once', async () => {
    const gone = spawnSync('true').pid;
    await writeFile(lockFileOf(dir), JSON.stringify({ pid: gone, startTicks: 1 }), { mode: 0o600 });
    await lock();
    expect(JSON.parse(await readFile(lockFileOf(dir), 'utf8'))).to.include({ pid: process.pid });
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.deep.equal({ event: 'stale_lock_replaced', dataDir: dir, formerPid: gone });
    expect(await readdir(dir)).to.deep.equal(['lock']);
  });

  it('takes a pid now used by another process for a gone holder (its start time differs), and an unreadable lock for none', async () => {
    await writeFile(lockFileOf(dir), JSON.stringify({ pid: process.pid, startTicks: (await ownStartTicks()) + 1 }));
    (await lock()).release();
    await writeFile(lockFileOf(dir), '{"pid":');
    await lock();
    expect(warnings.map((w) => (w as { formerPid?: number }).formerPid)).to.deep.equal([process.pid, undefined]);
  });

  it('lets go at release, and never removes a lock that is no longer its own', async () => {
    (await lock()).release();
    expect(await readdir(dir)).to.deep.equal([]);
    const taken = await lock();
    await writeFile(lockFileOf(dir), JSON.stringify({ pid: 1, startTicks: 0 }));
    taken.release();
    expect(await readdir(dir)).to.deep.equal(['lock']);
  });
});

describe('a port in use at start', () => {
  let holder: Server;
  let port: number;
  before(async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as { port: number }).port;
  });
  after(() => holder.close());

  const listenError = () => new Promise<Error>((resolve) => {
    const second = createServer();
    second.once('error', resolve).listen(port, '127.0.0.1');
  });

  it('is refused in one line naming the address and the flag that moves it', async () => {
    const refuse = refusePortInUse({ host: '127.0.0.1', port, what: 'the HTTP API', flag: '--http-port' });
    const error = await listenError();
    expect(() => refuse(error)).to.throw(StartRefusedError).with.property('message').that.equals(`127.0.0.1:${port} is in use by another program: the HTTP API cannot listen there; give it another port with --http-port`);
    expect(() => refusePortInUse({ host: '::1', port: 9, what: 'the Agent link', flag: '--grpc-port' })(Object.assign(new Error('x'), { code: 'EADDRINUSE' })))
      .to.throw(StartRefusedError, /^\[::1\]:9 is in use .* --grpc-port$/);
  });

  it('leaves any other failure as it is', () => {
    const other = Object.assign(new Error('denied'), { code: 'EACCES' });
    expect(() => refusePortInUse({ host: '127.0.0.1', port: 80, what: 'the HTTP API', flag: '--http-port' })(other)).to.throw(other);
  });
});
