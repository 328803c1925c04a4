import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localAgentDir } from '../../src/controller/program/local-agent.js';
import type { Upload } from '../../src/controller/schemas/file-uploads.js';
import type { Node, NodePage, ServerDetail, Team, User } from '../support/api-types.js';
import { adminCredentials, networkInput } from '../support/controller.js';
import { ControllerProcess } from '../support/controller-process.js';
import { killGames, waitForServer } from '../support/fleet.js';
import { gamePortsArgs, privateGamePorts } from '../support/game-ports.js';
import { sessionCookieFrom, type ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';

const MiB = 1024 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The Controller keeps nothing of an upload and its local Agent keeps it on disk: both restarted between two pieces, it goes on. */
describe('a resumable upload across a restart of the Controller and its local Agent', function () {
  this.timeout(120_000);
  let dataDir: string;
  let controller: ControllerProcess | undefined;
  let args: string[];
  const agentDir = () => localAgentDir(dataDir);

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cairn-upload-restart-'));
    args = ['--local-agent', ...gamePortsArgs(await privateGamePorts())];
  });
  after(async () => {
    await controller?.kill();
    await killGames(agentDir());
    await rm(dataDir, { recursive: true, force: true });
    await rm(agentDir(), { recursive: true, force: true });
  });

  const nodeHealthy = async (admin: ApiClient) => waitFor(async () => {
    const { items } = (await admin.get<NodePage>('/nodes')).body;
    return items[0]?.status.connectionState === 'HEALTHY' ? items[0] : undefined;
  }, { timeoutMs: 30_000, what: 'the local Node HEALTHY' });

  it('continues at the offset the Node kept and completes the file whole', async () => {
    controller = await ControllerProcess.start(dataDir, 0, { extraArgs: args });
    const setupCode = (await readFile(join(dataDir, 'setup-code'), 'utf8')).trim();
    const setup = await controller.api.post<User>('/setup', { setupCode, ...adminCredentials, network: networkInput });
    expect(setup.status, setup.text).to.equal(201);
    let admin = controller.api.withCookie(sessionCookieFrom(setup));
    const node: Node = await nodeHealthy(admin);
    const team = await admin.post<Team>('/teams', { name: 'Ops' });
    const created = await admin.post<ServerDetail>('/servers', { name: 'lobby', teamId: team.body.id, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 100, memoryBytes: 64 * MiB } });
    expect(created.status, created.text).to.equal(201);
    const id = created.body.id;
    await waitForServer(admin, id, (s) => s.phase === 'READY', 'READY');

    const data = randomBytes(8 * MiB);
    const begun = await admin.post<Upload>(`/servers/${id}/files/uploads`, { path: 'world.bin', size: data.length });
    expect(begun.status, begun.text).to.equal(201);
    const first = await admin.request<Upload>('PUT', `/servers/${id}/files/uploads/${begun.body.id}?offset=0`, { rawBody: data.subarray(0, 3 * MiB) });
    expect(first.status, first.text).to.equal(200);

    controller.child.kill('SIGTERM');
    await controller.exited;
    controller = await ControllerProcess.start(dataDir, controller.grpcPort, { extraArgs: args });
    const login = await controller.api.post('/auth/login', { username: adminCredentials.username, password: adminCredentials.password });
    admin = controller.api.withCookie(sessionCookieFrom(login));
    expect((await nodeHealthy(admin)).id).to.equal(node.id);

    const kept = await admin.get<Upload>(`/servers/${id}/files/uploads/${begun.body.id}`);
    expect(kept.status, kept.text).to.equal(200);
    expect(kept.body).to.include({ offset: 3 * MiB, completed: false });
    const rest = await admin.request<Upload>('PUT', `/servers/${id}/files/uploads/${begun.body.id}?offset=${3 * MiB}`, { rawBody: data.subarray(3 * MiB) });
    expect(rest.status, rest.text).to.equal(200);
    expect(rest.body.completed).to.equal(true);
    const root = join(agentDir(), 'servers', id, 'root');
    expect(sha256(await readFile(join(root, 'world.bin')))).to.equal(sha256(data));
    expect((await readdir(root)).filter((n) => n.startsWith('.cairn-upload'))).to.deep.equal([]);
  });
});
