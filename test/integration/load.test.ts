import autocannon from 'autocannon';
import { expect } from 'chai';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConsoleStreamEvent, EnrollmentIssued, Node, ServerDetail, ServerListItem, ServerPage, Team, User } from '../support/api-types.js';
import { AgentProcess } from '../support/agent-process.js';
import { adminCredentials, networkInput } from '../support/controller.js';
import { ControllerProcess } from '../support/controller-process.js';
import { GiB, killGames } from '../support/fleet.js';
import { privateGamePorts } from '../support/game-ports.js';
import { sessionCookieFrom, type ApiClient } from '../support/http.js';
import { openSse, type SseStream } from '../support/sse.js';
import { waitFor } from '../support/wait-for.js';

/** The API allows 4 console streams per server (2 per user: two users open them): 20 games make the 80 streams. */
const games = 20;
const streamsPerGame = 4;
const loadSeconds = 30;

/** A game that only talks: ready at once, then a numbered line every 500 ms, so every console stream always has news. */
const chatter = `import { createInterface } from 'node:readline';
console.log('Done (0.001s)! For help, type "help"');
let n = 0;
setInterval(() => console.log('chatter ' + n++), 500);
createInterface({ input: process.stdin }).on('line', (line) => { if (line.trim() === 'stop') process.exit(0); });
`;
const chatterTemplate = {
  id: 'chatter', name: 'Chatter (load test)', kind: 'GAME_SERVER', networkMember: false, platform: 'paper', versions: ['1'],
  install: { source: 'builtin', program: 'simcraft', file: 'simcraft.mjs' },
  seedFiles: [{ path: 'chatter.mjs', content: chatter }],
  run: { command: '{node}', args: ['chatter.mjs'] },
  readyPattern: 'Done \\(.*\\)! For help', stopCommand: 'stop', stopTimeoutSeconds: 5,
  config: { file: 'server.properties', format: 'properties', managed: { 'server-port': '{port}' } },
};

const lines = (stream: SseStream<ConsoleStreamEvent>) => stream.events.filter((e) => e.event === 'line').length;

/**
 * Load: the Controller in its own process and a real Agent running chatty games; 80 console streams
 * stay open while autocannon keeps GET /servers, GET /servers/{id} and GET /me busy for 30 s.
 * Strict on errors, loose on speed: no timing is asserted, p99 and req/s are printed.
 */
describe('load: 80 console streams and steady HTTP reads for 30 s (real processes)', function () {
  this.timeout(180_000);
  let dir: string;
  let controller: ControllerProcess;
  let agent: AgentProcess | undefined;
  let admin: ApiClient;
  let cookie: string;
  /** A second user's session: one user may hold only 2 of a server's 4 console streams. */
  let secondCookie: string;
  const servers: ServerDetail[] = [];
  const streams: SseStream<ConsoleStreamEvent>[] = [];
  const allServers = (predicate: (s: ServerListItem) => boolean, what: string) => {
    let behind: ServerListItem[] = [];
    return waitFor(async () => {
      const { items } = (await admin.get<ServerPage>(`/servers?limit=${games}`)).body;
      behind = items.filter((s) => !predicate(s));
      return items.length === games && behind.length === 0;
    }, {
      timeoutMs: 90_000, intervalMs: 250, what,
      explain: () => `${behind.length} not yet: ${behind.map((s) => `${s.name} ${s.phase}/${s.runtimeState ?? '-'}/${s.convergence}`).join(', ')}\nAgent's last lines:\n${agent?.stderr.split('\n').slice(-40).join('\n') ?? ''}`,
    });
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-load-'));
    await mkdir(join(dir, 'templates'));
    await writeFile(join(dir, 'templates', 'chatter.json'), JSON.stringify(chatterTemplate));
    controller = await ControllerProcess.start(join(dir, 'controller'), 0, { extraArgs: ['--templates-dir', join(dir, 'templates')] });
    const setupCode = (await readFile(join(dir, 'controller', 'setup-code'), 'utf8')).trim();
    const setup = await controller.api.post<User>('/setup', { setupCode, ...adminCredentials, network: networkInput });
    expect(setup.status, setup.text).to.equal(201);
    cookie = sessionCookieFrom(setup);
    admin = controller.api.withCookie(cookie);
    const second = { username: 'second-watcher', password: 'first-password-1' };
    const made = await admin.post<User>('/users', { ...second, email: 'second@example.com', displayName: 'Second', globalAdmin: true });
    expect(made.status, made.text).to.equal(201);
    secondCookie = sessionCookieFrom(await controller.api.post('/auth/login', second));
    const changed = await controller.api.withCookie(secondCookie).post('/me/password', { currentPassword: second.password, newPassword: 'second-password-2' });
    expect(changed.status, changed.text).to.equal(204);
    const teamId = (await admin.post<Team>('/teams', { name: 'Ops' })).body.id;
    const node = (await admin.post<EnrollmentIssued>('/nodes', { name: 'node-1' })).body;
    agent = AgentProcess.start({
      grpcPort: controller.grpcPort, dataDir: join(dir, 'agent'), gamePorts: await privateGamePorts(), enrollmentToken: node.enrollmentToken,
      extra: ['--cpu-millis', '8000', '--memory-bytes', String(8 * GiB), '--bind-address', '127.0.0.1'],
    });
    await waitFor(async () => (await admin.get<Node>(`/nodes/${node.node.id}`)).body.status.connectionState === 'HEALTHY', { timeoutMs: 30_000, what: 'the Node HEALTHY' });
    const created = await Promise.all(Array.from({ length: games }, (_, i) =>
      admin.post<ServerDetail>('/servers', { name: `chatter-${i}`, teamId, software: { template: 'chatter', version: '1' }, resources: { cpuMillis: 100, memoryBytes: GiB / 16 } })));
    expect(created.map((c) => c.status), created.map((c) => c.text).join('\n')).to.deep.equal(created.map(() => 201));
    servers.push(...created.map((c) => c.body));
    await allServers((s) => s.phase === 'READY', 'every server READY');
    const started = await Promise.all(servers.map((s) => admin.post(`/servers/${s.id}/start`)));
    expect(started.map((r) => r.status)).to.deep.equal(servers.map(() => 202));
    await allServers((s) => s.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', 'every game RUNNING');
  });
  after(async () => {
    for (const stream of streams) stream.close();
    await agent?.kill();
    await killGames(join(dir, 'agent'));
    // Undefined only when `before` failed first.
    await (controller as ControllerProcess | undefined)?.kill();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves every request 2xx with no error and keeps all 80 streams delivering lines', async () => {
    const base = `http://127.0.0.1:${controller.httpPort}/api/v1`;
    for (const s of servers) {
      for (let i = 0; i < streamsPerGame; i++) {
        streams.push(await openSse<ConsoleStreamEvent>(`${base}/servers/${s.id}/console?tail=0`, { cookie: i % 2 === 0 ? cookie : secondCookie }));
      }
    }
    expect(streams.map((s) => s.status), 'every stream opened').to.deep.equal(streams.map(() => 200));
    await Promise.all(streams.map((s) => s.next((e) => e.event === 'line', 20_000)));

    const result = await autocannon({
      url: `http://127.0.0.1:${controller.httpPort}`, connections: 16, duration: loadSeconds, headers: { cookie },
      requests: servers.flatMap((s) => [{ path: '/api/v1/servers' }, { path: `/api/v1/servers/${s.id}` }, { path: '/api/v1/me' }]),
    });
    const counted = streams.map(lines);
    // Every stream still has news after the load: each gets new lines, none was ended.
    await waitFor(() => streams.every((s, i) => lines(s) > counted[i]), { timeoutMs: 10_000, what: 'a new line on every stream after the load' });
    const ended = streams.filter((s) => s.events.some((e) => e.event === 'end'));
    const delivered = streams.reduce((sum, s) => sum + lines(s), 0);
    console.log(`      load ${loadSeconds} s, ${streams.length} console streams: ${Math.round(result.requests.average)} req/s, latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms; ${result.requests.total} requests, ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts; ${delivered} console lines delivered`);
    expect({ non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts }).to.deep.equal({ non2xx: 0, errors: 0, timeouts: 0 });
    expect(result.requests.total, 'requests were made').to.be.above(0);
    expect(ended, 'no stream was ended').to.have.length(0);
  });
});
