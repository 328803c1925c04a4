import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { EnrollmentIssued, Node, ServerDetail, Team } from '../support/api-types.js';
import { AgentPool } from '../support/agent-process.js';
import { ControllerProcess, setUpAdminOf } from '../support/controller-process.js';
import { GiB, killGames, waitForServer } from '../support/fleet.js';
import type { ApiClient } from '../support/http.js';
import { freePort } from '../support/sim-process.js';
import { waitFor } from '../support/wait-for.js';
import { screenshot, signedInPage } from './support-admin.js';

/** How soon after the Controller (and the Agent's link to it) is back the console must be live again. */
const recoverWithinMs = 8_000;

/**
 * The web console across a Controller restart (SIGTERM, as `systemctl restart` does), with real
 * processes: a Controller on a fixed HTTP port and data dir so the open page can find it again, and
 * a real Agent running simcraft, which keeps running while the Controller is away.
 */
describe('web UI: the console after a Controller restart', function () {
  this.timeout(120_000);
  const pool = new AgentPool();
  const pageErrors: string[] = [];
  let dataDir: string;
  let agentDir: string;
  let controller: ControllerProcess;
  let httpArgs: string[];
  let admin: ApiClient;
  let cookie: string;
  let browser: Browser;
  let page: Page;
  let serverId: string;
  let nodeId: string;

  const healthy = (client: ApiClient) =>
    waitFor(async () => (await client.get<Node>(`/nodes/${nodeId}`)).body.status.connectionState === 'HEALTHY' || undefined, { timeoutMs: 30_000, what: 'the Node HEALTHY' });

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cairn-test-'));
    agentDir = await mkdtemp(join(tmpdir(), 'cairn-agent-'));
    httpArgs = ['--http-port', String(await freePort())];
    controller = await ControllerProcess.start(dataDir, 0, { extraArgs: httpArgs });
    ({ admin, cookie } = await setUpAdminOf(controller, dataDir));
    const teamId = (await admin.post<Team>('/teams', { name: 'Ops' })).body.id;
    const node = await admin.post<EnrollmentIssued>('/nodes', { name: 'node-1' });
    nodeId = node.body.node.id;
    await pool.start({
      grpcPort: controller.grpcPort, dataDir: agentDir, enrollmentToken: node.body.enrollmentToken,
      extra: ['--cpu-millis', '8000', '--memory-bytes', String(8 * GiB), '--bind-address', '127.0.0.1'],
    });
    await healthy(admin);
    const created = await admin.post<ServerDetail>('/servers', { name: 'lobby', teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 200, memoryBytes: GiB / 8 } });
    expect(created.status, created.text).to.equal(201);
    serverId = created.body.id;
    await waitForServer(admin, serverId, (s) => s.phase === 'READY', 'READY');
    expect((await admin.post(`/servers/${serverId}/start`)).status).to.equal(202);
    await waitForServer(admin, serverId, (s) => s.status.runtimeState === 'RUNNING', 'RUNNING', 30_000);
    ({ browser, page } = await signedInPage(`http://127.0.0.1:${controller.httpPort}`, pageErrors, undefined, { timeoutMs: 15_000 }));
  });

  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    await browser?.close();
    await pool.killAll();
    await controller?.kill();
    if (agentDir) await killGames(agentDir);
    for (const dir of [dataDir, agentDir]) if (dir) await rm(dir, { recursive: true, force: true });
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  afterEach(() => expect(pageErrors, 'uncaught errors in the page').to.deep.equal([]));

  it('reconnects within seconds of the Controller being back, shows new lines, and no alert stays', async () => {
    await page.goto(`http://127.0.0.1:${controller.httpPort}/servers/${serverId}`);
    const connected = page.getByRole('status').filter({ hasText: 'Connected' });
    const log = page.getByRole('log');
    await connected.waitFor();
    expect((await admin.post(`/servers/${serverId}/console/commands`, { command: 'say before the restart' })).status).to.equal(200);
    await log.filter({ hasText: '[Server] before the restart' }).waitFor();

    await controller.kill('SIGTERM');
    await connected.waitFor({ state: 'detached' });
    controller = await ControllerProcess.start(dataDir, controller.grpcPort, { extraArgs: httpArgs });
    admin = controller.api.withCookie(cookie);
    await healthy(admin);

    const back = Date.now();
    await connected.waitFor({ timeout: recoverWithinMs });
    expect((await admin.post(`/servers/${serverId}/console/commands`, { command: 'say after the restart' })).status).to.equal(200);
    await log.filter({ hasText: '[Server] after the restart' }).waitFor({ timeout: recoverWithinMs - (Date.now() - back) });
    await page.getByRole('status').filter({ hasText: 'Live updates interrupted' }).waitFor({ state: 'detached', timeout: recoverWithinMs });
    expect(await page.getByRole('alert').allTextContents(), 'no alert left from the restart').to.deep.equal([]);
    await screenshot(page, 'console-after-controller-restart');
  });
});
