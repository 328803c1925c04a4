import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkServerIdentity } from 'node:tls';
import { pino } from 'pino';
import { Agent } from 'undici';
import { parseControllerConfig } from '../../src/controller/program/config.js';
import { startController } from '../../src/controller/controller.js';
import { silentLogger } from '../../src/shared/logger.js';
import { localAgentDir } from '../../src/controller/program/local-agent.js';
import { AgentProcess } from '../support/agent-process.js';
import { adminCredentials, setupAdmin, startTestController } from '../support/controller.js';
import type { EnrollmentIssued, Node, NodePage, ServerDetail, User } from '../support/api-types.js';
import { killGames, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { gamePortsArgs, privateGamePorts } from '../support/game-ports.js';
import { ApiClient, sessionCookieFrom } from '../support/http.js';
import { runBuilt } from '../support/run-program.js';
import { makeCa, makeServerCert, type ServerCert, type TestCa } from '../support/tls-certs.js';
import { waitFor } from '../support/wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const small = { cpuMillis: 100, memoryBytes: 64 * 2 ** 20 };

/**
 * TLS end to end with a CA made in the test (openssl): HTTPS on the HTTP port, TLS on the Agent
 * link, the real Agent pinning `--controller-ca`, the built CLI with `--ca`.
 */
describe('TLS: HTTPS and the Agent link with a CA of our own', function () {
  this.timeout(120_000);
  let dir: string;
  let ca: TestCa;
  let otherCa: TestCa;
  let cert: ServerCert;
  let f: Fleet;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-tls-'));
    ca = await makeCa(dir, 'cairn-test-ca');
    otherCa = await makeCa(dir, 'someone-elses-ca');
    cert = await makeServerCert(dir, ca, 'controller', ['DNS:localhost', 'IP:127.0.0.1']);
    f = await startFleet({ tls: { cert, ca }, agentArgs: ['--controller-ca', ca.certFile] });
  });
  after(async () => {
    await f.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the API over HTTPS to a client that trusts the CA, and not to one that does not', async () => {
    expect(f.t.baseUrl).to.match(/^https:/);
    const ready = await f.t.api.get('/readyz');
    expect(ready.status, ready.text).to.equal(200);
    expect(ready.headers.get('strict-transport-security')).to.equal('max-age=31536000');
    const untrusted = await fetch(`${f.t.baseUrl}/healthz`).then(() => undefined, (e: unknown) => (e as { cause?: { code?: string } }).cause?.code);
    expect(untrusted).to.match(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|UNABLE_TO_GET_ISSUER/);
    const plain = await fetch(`http://127.0.0.1:${f.t.controller.httpPort}/healthz`).then((r) => r.status, () => 'refused');
    expect(plain).to.not.equal(200);
  });

  it('signs in over HTTPS with the __Host- session cookie (Secure), which then authenticates', async () => {
    const login = await f.t.api.post('/auth/login', { username: adminCredentials.username, password: adminCredentials.password });
    expect(login.status, login.text).to.equal(200);
    const setCookie = login.headers.get('set-cookie')!;
    expect(setCookie).to.match(/^__Host-cairn_session=[^;]+;/).and.include('Secure').and.include('HttpOnly').and.include('Path=/');
    const me = await f.t.api.withCookie(sessionCookieFrom(login)).get<User>('/me');
    expect(me.status).to.equal(200);
    expect(me.body.username).to.equal(adminCredentials.username);
  });

  it('the real Agent with --controller-ca enrolled over TLS, and a server on it converges', async () => {
    const node = (await f.admin.get<Node>(`/nodes/${f.nodeId}`)).body;
    expect(node.status.connectionState).to.equal('HEALTHY');
    expect(f.agent.stderr).to.match(/"event":"enrolled"/).and.match(/"event":"connected"/);
    const created = await f.admin.post<ServerDetail>('/servers', { name: 'secure', teamId: f.teamId, software: simcraft, resources: small, nodeId: f.nodeId });
    expect(created.status, created.text).to.equal(201);
    await waitForServer(f.admin, created.body.id, (s) => s.phase === 'READY', 'READY');
    expect((await f.admin.post(`/servers/${created.body.id}/start`)).status).to.equal(202);
    const running = await waitForServer(f.admin, created.body.id, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', 'RUNNING and CONVERGED', 30_000);
    expect(running.observedGeneration).to.equal(running.generation);
  });

  it('an Agent pinning another CA is refused: it never connects and logs a clear TLS error', async () => {
    const issued = await f.admin.post<EnrollmentIssued>('/nodes', { name: 'impostor-check' });
    const agentDir = join(dir, 'wrong-ca-agent');
    const agent = AgentProcess.start({
      grpcPort: f.t.controller.grpcPort, dataDir: agentDir, gamePorts: await privateGamePorts(), enrollmentToken: issued.body.enrollmentToken,
      extra: ['--controller-ca', otherCa.certFile],
    });
    try {
      await waitFor(() => /"event":"tls_refused"/.test(agent.stderr), { timeoutMs: 30_000, what: 'the tls_refused log line' });
      expect(agent.stderr).to.match(/the Controller's TLS certificate is not trusted \([^)]*certificate[^)]*\): --controller-ca must be the CA that signed/);
      expect(agent.stderr).to.not.match(/"event":"enrolled"/);
      const node = (await f.admin.get<Node>(`/nodes/${issued.body.node.id}`)).body;
      expect(node.status.connectionState).to.equal('AWAITING_ENROLLMENT');
      expect(agent.running).to.equal(true);
    } finally {
      await agent.kill();
    }
  });

  describe('the built cairn CLI over HTTPS', () => {
    let home: string;
    const env = () => ({ CAIRN_CREDENTIALS: join(home, 'credentials.json'), CAIRN_URL: '', CAIRN_TOKEN: '', CAIRN_CA: '' });
    const cairn = (args: string[], stdin?: string, extraEnv: Record<string, string> = {}) => runBuilt('cli', args, { env: { ...env(), ...extraEnv }, stdin });

    before(async () => {
      home = await mkdtemp(join(tmpdir(), 'cairn-tls-cli-'));
    });
    after(() => rm(home, { recursive: true, force: true }));

    it('without the CA, says the certificate is not trusted and exits 1', async () => {
      const res = await cairn(['login', '--url', f.t.baseUrl, '--username', 'admin', '--password-stdin'], `${adminCredentials.password}\n`);
      expect(res.code).to.equal(1);
      expect(res.stderr).to.match(/cannot reach the Controller at https:\/\/127\.0\.0\.1:\d+: \w+ \(its certificate is not trusted: give the CA that signed it with --ca FILE or CAIRN_CA\)/);
    });

    it('cairn login --ca keeps the CA for later commands; CAIRN_CA works as well', async () => {
      const login = await cairn(['login', '--url', f.t.baseUrl, '--ca', ca.certFile, '--username', 'admin', '--password-stdin'], `${adminCredentials.password}\n`);
      expect(login.code, login.stderr).to.equal(0);
      const stored = JSON.parse(await readFile(join(home, 'credentials.json'), 'utf8')) as { url: string; ca: string };
      expect(stored).to.include({ url: f.t.baseUrl, ca: ca.certFile });
      const nodes = await cairn(['get', 'nodes', '-o', 'json']);
      expect(nodes.code, nodes.stderr).to.equal(0);
      expect((JSON.parse(nodes.stdout) as NodePage).items.map((n) => n.name)).to.include('node-1');
      const token = (JSON.parse(await readFile(join(home, 'credentials.json'), 'utf8')) as { token: string }).token;
      const viaEnv = await runBuilt('cli', ['whoami', '-o', 'json'], { env: { CAIRN_CREDENTIALS: join(home, 'none.json'), CAIRN_URL: f.t.baseUrl, CAIRN_TOKEN: token, CAIRN_CA: ca.certFile } });
      expect(viaEnv.code, viaEnv.stderr).to.equal(0);
      expect((JSON.parse(viaEnv.stdout) as User).username).to.equal('admin');
    });

    it('cairn create node prints the Agent command with --controller-ca, because the link runs TLS', async () => {
      const res = await cairn(['create', 'node', 'host-2', '--controller-ca', '/etc/cairn/ca.pem']);
      expect(res.code, res.stderr).to.equal(0);
      expect(res.stdout).to.match(/^cairn-agent --controller 127\.0\.0\.1:\d+ --data-dir \/var\/lib\/cairn-agent --enrollment-token cairn_enr_\S+ --controller-ca \/etc\/cairn\/ca\.pem\n$/);
    });

    it('a --ca file that cannot be read is a usage error naming it (exit 2)', async () => {
      const res = await cairn(['get', 'nodes', '--ca', join(home, 'missing.pem')]);
      expect(res.code).to.equal(2);
      expect(res.stderr).to.include(`--ca ${join(home, 'missing.pem')}: ENOENT`);
    });
  });
});

describe('TLS with --local-agent: the local Agent verifies the link too', function () {
  this.timeout(60_000);

  it('enrolls over TLS with --tls-ca, checking a certificate that names neither 127.0.0.1 nor localhost by its DNS name', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-tls-local-'));
    const ca = await makeCa(dir, 'local-ca');
    const cert = await makeServerCert(dir, ca, 'controller', ['DNS:cairn.internal.example']);
    const t = await startTestController({ tls: { cert, ca }, extraArgs: ['--tls-ca', ca.certFile, '--local-agent', ...gamePortsArgs(await privateGamePorts())] });
    try {
      // This client, like the local Agent, checks the certificate against the name it carries.
      const dispatcher = new Agent({ connect: { ca: ca.pem, checkServerIdentity: (_host, peer) => checkServerIdentity('cairn.internal.example', peer) } });
      const { admin } = await setupAdmin({ ...t, api: new ApiClient(t.baseUrl, {}, dispatcher) });
      const node = await waitFor(async () => {
        const { items } = (await admin.get<NodePage>('/nodes')).body;
        return items[0]?.status.connectionState === 'HEALTHY' ? items[0] : undefined;
      }, { timeoutMs: 30_000, what: 'the local Node HEALTHY over TLS' });
      expect(node.name).to.equal('local');
      const argv = (await readFile(`/proc/${t.controller.localAgent!.pid!}/cmdline`, 'utf8')).split('\0');
      expect(argv).to.include.members(['--controller-ca', ca.certFile, '--controller-tls-name', 'cairn.internal.example']);
    } finally {
      await t.stop();
      await killGames(localAgentDir(t.dataDir));
      await t.dispose();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('TLS: the Controller says when it listens beyond loopback in plaintext', function () {
  this.timeout(60_000);

  /** Starts a Controller on every interface with a logger whose lines the test reads, and stops it. */
  async function logsOfStart(dir: string, extraArgs: string[]): Promise<string> {
    let logs = '';
    const logger = pino({ level: 'info' }, { write: (line: string) => void (logs += line) });
    const config = parseControllerConfig(['--data-dir', join(dir, `data-${extraArgs.length}`), '--host', '0.0.0.0', '--http-port', '0', '--grpc-port', '0', ...extraArgs], {});
    const controller = await startController({ config, logger });
    await controller.close();
    return logs;
  }

  it('refuses to listen beyond loopback without TLS unless --insecure-link, naming both ways out', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-tls-refuse-'));
    try {
      const refused = await logsOfStart(dir, []).then(() => 'started', (e: unknown) => (e as Error).message);
      expect(refused).to.match(/^--host 0\.0\.0\.0 reaches beyond this machine: .*--tls-cert and --tls-key.*--insecure-link/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('warns with --insecure-link, and not with --tls-cert (then it logs the certificate\'s names and end of validity)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-tls-warn-'));
    try {
      const plain = await logsOfStart(dir, ['--insecure-link']);
      expect(plain).to.match(/"event":"agent_link_plaintext".*"msg":"The HTTP API and the Agent link listen beyond loopback without TLS \(--insecure-link\); give --tls-cert and --tls-key"/);
      const ca = await makeCa(dir, 'warn-ca');
      const cert = await makeServerCert(dir, ca, 'controller', ['DNS:localhost', 'IP:127.0.0.1']);
      const secure = await logsOfStart(dir, ['--tls-cert', cert.certFile, '--tls-key', cert.keyFile]);
      expect(secure).to.not.include('agent_link_plaintext');
      expect(secure).to.match(/"event":"tls","names":"DNS:localhost, IP Address:127\.0\.0\.1","validTo":"[^"]+ GMT"/);
      expect(secure).to.match(/"webUrl":"https:\/\/127\.0\.0\.1:\d+\/"/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a key that does not belong to the certificate stops the start, naming both files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-tls-mismatch-'));
    try {
      const ca = await makeCa(dir, 'mismatch-ca');
      const cert = await makeServerCert(dir, ca, 'controller', ['IP:127.0.0.1']);
      const config = parseControllerConfig(['--data-dir', join(dir, 'data'), '--http-port', '0', '--grpc-port', '0', '--tls-cert', cert.certFile, '--tls-key', ca.keyFile], {});
      const failed = await startController({ config, logger: silentLogger }).then(() => undefined, (e: unknown) => (e as Error).message);
      expect(failed).to.be.a('string').and.satisfy((m: string) => m.startsWith(`--tls-cert ${cert.certFile} with --tls-key ${ca.keyFile}: `)).and.match(/key values mismatch/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
