import { expect } from 'chai';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentPool } from '../support/agent-process.js';
import type { AuditEventPage, Backup, EnrollmentIssued, Node, ServerDetail, Team } from '../support/api-types.js';
import { ControllerProcess, setUpAdminOf } from '../support/controller-process.js';
import { GiB, killGames, startFleet, tcpAccepts, waitForServer, type Fleet } from '../support/fleet.js';
import type { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';
import { waitFor } from '../support/wait-for.js';

const small = { cpuMillis: 500, memoryBytes: GiB };
const enc = encodeURIComponent;
const isRunning = (s: ServerDetail) => s.phase === 'READY' && s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED';
const failureOf = (s: ServerDetail) => s.conditions.find((c) => c.reason === 'UPDATE_FAILED');
const rootOf = (agentDir: string, id: string) => join(agentDir, 'servers', id, 'root');
const worldVersion = async (agentDir: string, id: string) => (await readFile(join(rootOf(agentDir, id), 'world', 'version.txt'), 'utf8')).trim();
const installed = async (agentDir: string, id: string) => JSON.parse(await readFile(join(agentDir, 'servers', id, 'software', 'installed.json'), 'utf8')) as { version: string };

/** The server, created READY on `version`, optionally started (and so its world written by that version). */
async function createServer(admin: ApiClient, teamId: string, name: string, version: string, run: boolean): Promise<string> {
  const res = await admin.post<ServerDetail>('/servers', { name, teamId, software: { template: 'simcraft', version }, resources: small });
  expect(res.status, res.text).to.equal(201);
  await waitForServer(admin, res.body.id, (s) => s.phase === 'READY', 'READY');
  if (run) {
    await admin.post(`/servers/${res.body.id}/start`);
    await waitForServer(admin, res.body.id, isRunning, 'RUNNING', 30_000);
  }
  return res.body.id;
}

describe('software updates end to end: real Agent, real simcraft', function () {
  this.timeout(120_000);
  let f: Fleet;
  const update = (id: string, body: Record<string, unknown>) => f.admin.post<ServerDetail>(`/servers/${id}/software`, body);
  const ended = (id: string) => waitForServer(f.admin, id, (s) => s.phase !== 'UPDATING', 'the update to end', 60_000);

  before(async () => {
    f = await startFleet();
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    await f?.dispose();
  });

  it('1.21.1 → 1.21.4 on a running server: READY on 1.21.4, a new generation, the world taken over, audited, no rollback copy left', async () => {
    const id = await createServer(f.admin, f.teamId, 'upgrade', '1.21.1', true);
    expect(await worldVersion(f.agentDir, id)).to.equal('1.21.1');
    const before = (await f.admin.get<ServerDetail>(`/servers/${id}`)).body;
    const port = before.gamePort!;
    // The game port's longest closed stretch while the update runs: the downtime a player sees.
    let closedSince: number | undefined;
    let longestClosedMs = 0;
    const polling = { on: true };
    const poller = (async () => {
      while (polling.on) {
        const open = await tcpAccepts(port);
        const now = performance.now();
        if (!open && closedSince === undefined) closedSince = now;
        if (open && closedSince !== undefined) {
          longestClosedMs = Math.max(longestClosedMs, now - closedSince);
          closedSince = undefined;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    const res = await update(id, { version: '1.21.4' });
    expect(res.status, res.text).to.equal(202);
    expect(res.body.phase).to.equal('UPDATING');
    expect(res.body.workflow?.kind).to.equal('UPDATE');
    const done = await ended(id);
    expect(done.phase).to.equal('READY');
    expect(failureOf(done), failureOf(done)?.message).to.equal(undefined);
    expect(done.software).to.deep.equal({ template: 'simcraft', version: '1.21.4' });
    expect(done.generation).to.be.greaterThan(before.generation);
    await waitForServer(f.admin, id, isRunning, 'RUNNING on 1.21.4', 30_000);
    polling.on = false;
    await poller;
    console.log(`      (game port closed for ${Math.round(longestClosedMs)} ms during the update)`);
    expect(await worldVersion(f.agentDir, id)).to.equal('1.21.4');
    expect((await installed(f.agentDir, id)).version).to.equal('1.21.4');
    const audit = await f.admin.get<AuditEventPage>(`/audit-events?action=server.software.update&targetId=${id}`);
    expect(audit.body.items.map((e) => e.outcome)).to.deep.equal(['SUCCESS']);
    expect(audit.body.items[0].details).to.deep.include({ version: '1.21.4' });
    const backups = (await f.admin.get<{ items: Backup[] }>(`/servers/${id}/backups`)).body.items;
    expect(backups.filter((b) => b.trigger === 'PRE_UPDATE')).to.deep.equal([]);
  });

  it('refuses an unknown version or build, the same software, a downgrade without allowDowngrade, and a second update while one runs', async () => {
    const id = await createServer(f.admin, f.teamId, 'refusals', '1.21.4', false);
    expectProblem(await update(id, { version: '9.9.9' }), 400, 'invalid_request', 'body.version');
    expectProblem(await update(id, { version: '1.21.4' }), 400, 'invalid_request', 'body.version');
    expectProblem(await update(id, { version: '1.20.6' }), 409, 'downgrade_refused', '1.20.6');
    expectProblem(await update(id, { version: '1.21.1', surprise: true }), 400, 'invalid_request');
    const s = (await f.admin.get<ServerDetail>(`/servers/${id}`)).body;
    expect(s.phase).to.equal('READY');
    expect(s.software.version).to.equal('1.21.4');
    const first = await update(id, { version: '1.21.1', allowDowngrade: true });
    expect(first.status, first.text).to.equal(202);
    expectProblem(await update(id, { version: '1.20.6', allowDowngrade: true }), 409, 'phase_busy');
    // A stopped server is not started: the downgrade installs and ends READY on 1.21.1 (its world was never opened).
    const done = await ended(id);
    expect(failureOf(done), failureOf(done)?.message).to.equal(undefined);
    expect(done.software.version).to.equal('1.21.1');
    expect(done.desiredState).to.equal('STOPPED');
  });

  it('allowDowngrade 1.21.4 → 1.20.6: simcraft refuses the newer world, so the update rolls back to 1.21.4, running again', async () => {
    const id = await createServer(f.admin, f.teamId, 'downgrade', '1.21.4', true);
    const res = await update(id, { version: '1.20.6', allowDowngrade: true });
    expect(res.status, res.text).to.equal(202);
    const done = await ended(id);
    expect(done.phase).to.equal('READY');
    expect(done.software.version).to.equal('1.21.4');
    expect(failureOf(done)?.message).to.include('starting on the new software').and.include('1.20.6');
    await waitForServer(f.admin, id, isRunning, 'RUNNING again on 1.21.4', 30_000);
    expect(await worldVersion(f.agentDir, id)).to.equal('1.21.4');
    expect((await installed(f.agentDir, id)).version).to.equal('1.21.4');
  });

  it('1.21.4-crash rolls back: READY on 1.21.1 with UPDATE_FAILED, the files as they were, running again, the PRE_UPDATE backup kept in its destination', async () => {
    const id = await createServer(f.admin, f.teamId, 'crashing', '1.21.1', true);
    const put = await f.admin.put(`/servers/${id}/files/content?path=${enc('notes.txt')}`, undefined, { rawBody: Buffer.from('keep me\n') });
    expect(put.status, put.text).to.equal(204);
    const destinations = (await f.admin.get<{ items: { id: string; name: string }[] }>('/backup-destinations')).body.items;
    const controllerDestination = destinations.find((d) => d.name === 'controller')!.id;
    const res = await update(id, { version: '1.21.4-crash', backupDestinationId: controllerDestination });
    expect(res.status, res.text).to.equal(202);
    const done = await ended(id);
    expect(done.phase).to.equal('READY');
    expect(done.software).to.deep.equal({ template: 'simcraft', version: '1.21.1' });
    expect(failureOf(done)?.message).to.include('starting on the new software').and.include('put back')
      .and.include('exited before it was ready (exit code 1); its last line: ').and.include('simcraft 1.21.4-crash always fails to start');
    await waitForServer(f.admin, id, isRunning, 'RUNNING again on 1.21.1', 30_000);
    expect((await readFile(join(rootOf(f.agentDir, id), 'notes.txt'), 'utf8'))).to.equal('keep me\n');
    expect(await worldVersion(f.agentDir, id)).to.equal('1.21.1');
    expect((await installed(f.agentDir, id)).version).to.equal('1.21.1');
    const backups = (await f.admin.get<{ items: Backup[] }>(`/servers/${id}/backups`)).body.items;
    expect(backups.filter((b) => b.trigger === 'PRE_UPDATE').map((b) => b.state)).to.deep.equal(['SUCCEEDED']);
  });
});

describe('software update and a Controller killed (SIGKILL) mid-way: real processes', function () {
  this.timeout(120_000);
  const pool = new AgentPool();
  const dirs: string[] = [];
  let controller: ControllerProcess | undefined;

  const tempDir = async (prefix: string) => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  after(async () => {
    await pool.killAll();
    await controller?.kill();
    for (const dir of dirs) {
      await killGames(dir);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('ends READY on exactly one version, never UPDATING, after a restart', async () => {
    const dataDir = await tempDir('cairn-test-');
    const first = await ControllerProcess.start(dataDir);
    controller = first;
    const session = await setUpAdminOf(first, dataDir);
    const { cookie } = session;
    let admin = session.admin;
    const teamId = (await admin.post<Team>('/teams', { name: 'Ops' })).body.id;
    const created = await admin.post<EnrollmentIssued>('/nodes', { name: 'node-1' });
    const agentDir = await tempDir('cairn-agent-');
    await pool.start({
      grpcPort: first.grpcPort, dataDir: agentDir, enrollmentToken: created.body.enrollmentToken,
      extra: ['--cpu-millis', '8000', '--memory-bytes', String(8 * GiB), '--bind-address', '127.0.0.1'],
    });
    await waitFor(async () => (await admin.get<Node>(`/nodes/${created.body.node.id}`)).body.acceptsPlacements, { timeoutMs: 20_000, what: 'node-1 HEALTHY' });
    const id = await createServer(admin, teamId, 'survivor', '1.21.1', false);
    // A slow start keeps the update in its last step long enough to kill the Controller there.
    const props = await admin.patch(`/servers/${id}/properties`, { 'simcraft-startup-delay-ms': '4000' });
    expect(props.status, props.text).to.equal(200);
    await admin.post(`/servers/${id}/start`);
    await waitForServer(admin, id, isRunning, 'RUNNING', 30_000);

    expect((await admin.post(`/servers/${id}/software`, { version: '1.21.4' })).status).to.equal(202);
    await waitForServer(admin, id, (s) => s.workflow?.step === 'starting on the new software', 'starting on the new software', 60_000);
    await first.kill('SIGKILL');
    const restarted = await ControllerProcess.start(dataDir, first.grpcPort);
    controller = restarted;
    admin = restarted.api.withCookie(cookie);

    const settled = await waitForServer(admin, id, (s) => s.phase !== 'UPDATING', 'the update to end', 60_000);
    expect(settled.phase).to.equal('READY');
    const running = await waitForServer(admin, id, isRunning, 'RUNNING after the restart', 60_000);
    const version = running.software.version;
    expect(version).to.be.oneOf(['1.21.1', '1.21.4']);
    expect((await installed(agentDir, id)).version).to.equal(version);
    expect(await worldVersion(agentDir, id)).to.equal(version);
    expect(await tcpAccepts(running.gamePort!)).to.equal(true);
    await access(join(rootOf(agentDir, id), 'server.properties'));
  });
});
