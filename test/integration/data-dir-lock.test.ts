import { expect } from 'chai';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lockFileOf } from '../../src/shared/data-dir-lock.js';
import { AgentPool } from '../support/agent-process.js';
import { ControllerProcess } from '../support/controller-process.js';
import { waitFor } from '../support/wait-for.js';

/** A port nothing listens on: an Agent dialling it retries its enrollment, alive, for as long as the test needs. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const lockHolder = async (dataDir: string) => (JSON.parse(await readFile(lockFileOf(dataDir), 'utf8').catch(() => '{}')) as { pid?: number }).pid;

describe('one Controller or Agent per data dir; a port in use (real processes)', function () {
  // Each process compiles its TypeScript through tsx first: seconds on a loaded machine.
  this.timeout(120_000);
  let dir: string;
  const controllers: ControllerProcess[] = [];
  const agents = new AgentPool();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-data-lock-'));
  });
  after(async () => {
    await Promise.all(controllers.map((c) => c.kill()));
    await agents.killAll();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a second Controller on a data dir in one line naming the first, which keeps serving; after a SIGKILL the next one starts', async () => {
    const dataDir = join(dir, 'controller');
    const first = await ControllerProcess.start(dataDir);
    controllers.push(first);
    const second = await ControllerProcess.refused(dataDir);
    expect(second.stderr).to.equal(`cairn-controller: another Controller (pid ${first.child.pid}) is using ${dataDir}\n`);
    expect(second.code).to.equal(2);
    expect(second.stdout).to.equal('');
    expect((await first.api.get('/healthz')).status).to.equal(200);

    await first.kill('SIGKILL');
    expect(await lockHolder(dataDir)).to.equal(first.child.pid);
    const next = await ControllerProcess.start(dataDir);
    controllers.push(next);
    expect(next.stderr).to.include('"event":"stale_lock_replaced"');
    expect(await lockHolder(dataDir)).to.equal(next.child.pid);
    await next.kill('SIGTERM');
    expect({ code: next.child.exitCode, signal: next.child.signalCode }, `stderr: ${next.stderr.slice(-1500)}`).to.deep.equal({ code: 0, signal: null });
    expect(await lockHolder(dataDir)).to.equal(undefined);
  });

  it('refuses a second Agent on a data dir, naming the first', async () => {
    const dataDir = join(dir, 'agent');
    const grpcPort = await closedPort();
    const first = await agents.start({ grpcPort, dataDir, enrollmentToken: 'never-answered' });
    await waitFor(async () => (await lockHolder(dataDir)) === first.child.pid, { timeoutMs: 60_000, what: 'the first Agent holding its data dir' });
    const second = await agents.start({ grpcPort, dataDir, enrollmentToken: 'never-answered' });
    expect(await second.exited).to.equal(2);
    expect(second.stderr).to.equal(`cairn-agent: another Agent (pid ${first.child.pid}) is using ${dataDir}\n`);
    expect(first.running).to.equal(true);
  });

  it('refuses to start on an HTTP port in use in one line naming the address and --http-port, without a stack trace', async () => {
    const holder = createServer().listen(0, '127.0.0.1');
    await once(holder, 'listening');
    const { port } = holder.address() as AddressInfo;
    try {
      // Its start logs warnings of its own before it listens (the software sources are unreachable from tests).
      const refused = await ControllerProcess.refused(join(dir, 'port'), { extraArgs: ['--http-port', String(port)], env: { CAIRN_LOG_LEVEL: 'error' } });
      expect(refused.stderr).to.equal(`cairn-controller: 127.0.0.1:${port} is in use by another program: the HTTP API cannot listen there; give it another port with --http-port\n`);
      expect(refused.code).to.equal(2);
      expect(await lockHolder(join(dir, 'port'))).to.equal(undefined);
    } finally {
      holder.close();
    }
  });
});
