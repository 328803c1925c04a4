import { expect } from 'chai';
import { join } from 'node:path';
import type { CreatedApiToken, ServerDetail } from '../support/api-types.js';
import { startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { RunningProgram, runBuilt } from '../support/run-program.js';
import { waitFor } from '../support/wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };

/**
 * `cairn logs -f` (the built binary, `npm run build` first) against a real Controller and an
 * Agent running simcraft: it follows the console across restarts, as `kubectl logs -f` follows a
 * restarted container, and ends when the server is stopped or deleted, saying why.
 */
describe('cairn logs -f: follows across restarts, ends at a stop or a delete', function () {
  this.timeout(120_000);
  let f: Fleet;
  let token: string;
  let serverId: string;
  const running: RunningProgram[] = [];
  const env = () => ({ CAIRN_URL: f.t.baseUrl, CAIRN_TOKEN: token, CAIRN_CREDENTIALS: join(f.agentDir, 'no-credentials.json') });
  const follow = () => {
    const p = new RunningProgram('cli', ['logs', 'lobby', '-f', '--tail', '0'], env());
    running.push(p);
    return p;
  };
  /** Types `say <word>` until the follower prints it (the console refuses commands while the game restarts). */
  const sayUntilFollowed = (p: RunningProgram, word: string) => waitFor(async () => {
    await runBuilt('cli', ['exec', 'lobby', '--wait', '100ms', '--', 'say', word], { env: env() });
    return p.stdout.includes(`[Server] ${word}`);
  }, { timeoutMs: 60_000, intervalMs: 200, what: `logs -f to print "${word}"` });
  const startAndRun = async () => {
    expect((await f.admin.post(`/servers/${serverId}/start`)).status).to.equal(202);
    await waitForServer(f.admin, serverId, (s) => s.status.runtimeState === 'RUNNING', 'RUNNING', 60_000);
  };

  before(async () => {
    f = await startFleet();
    token = (await f.admin.post<CreatedApiToken>('/me/tokens', { name: 'cli-logs' })).body.token;
    const created = await f.admin.post<ServerDetail>('/servers', { name: 'lobby', teamId: f.teamId, software: simcraft, resources: { cpuMillis: 500, memoryBytes: 512 * 2 ** 20 }, nodeId: f.nodeId });
    expect(created.status, created.text).to.equal(201);
    serverId = created.body.id;
    await waitForServer(f.admin, serverId, (s) => s.phase === 'READY', 'READY', 60_000);
    await startAndRun();
  });
  after(async () => {
    await Promise.all(running.map((p) => p.stop()));
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    await f?.dispose();
  });

  it('keeps following across a restart and a crash, marking each and printing the new run from its start; a stop ends it, saying so', async () => {
    const logs = follow();
    await sayUntilFollowed(logs, 'before');
    expect((await f.admin.post(`/servers/${serverId}/restart`)).status).to.equal(202);
    await sayUntilFollowed(logs, 'after');
    const marker = /^--- server restarted \(exit code \d+\) ---$/m;
    // The new run's start-up lines, printed before the follower reconnected, are printed too, once.
    await waitFor(() => /Done \([\d.]+s\)! For help, type "help"/.test(logs.stdout.split(marker)[1] ?? ''), { timeoutMs: 30_000, what: 'the new run\'s ready line' });
    const runs = logs.stdout.split(marker);
    expect(runs, logs.stdout).to.have.length(2);
    expect(runs[0]).to.include('[Server] before').and.include('Stopping the server');
    expect(runs[1].match(/Done \([\d.]+s\)! For help, type "help"/g)).to.have.length(1);
    expect(runs[1]).to.match(/^\n[^\n]*Starting minecraft server version/).and.not.include('[Server] before');

    // A crash the Agent restarts from is followed too, with the game's exit code.
    await runBuilt('cli', ['exec', 'lobby', '--wait', '100ms', '--', 'crash'], { env: env() });
    await sayUntilFollowed(logs, 'after-crash');
    expect(logs.stdout).to.match(/^--- server restarted \(exit code 1\) ---\n(?:.*\n)*.*\[Server\] after-crash$/m);

    expect((await f.admin.post(`/servers/${serverId}/stop`)).status).to.equal(202);
    expect(await logs.exited).to.equal(0);
    expect(logs.stderr).to.match(/^\(logs ended: the server stopped, exit code \d+\)$/m);
  });

  it('ends when the server is deleted, saying so', async () => {
    await startAndRun();
    const logs = follow();
    await sayUntilFollowed(logs, 'doomed');
    expect((await f.admin.delete(`/servers/${serverId}`)).status).to.equal(202);
    expect(await logs.exited).to.equal(0);
    expect(logs.stderr).to.include('(logs ended: the server was deleted)');
  });
});
