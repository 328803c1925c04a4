import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CreatedApiToken, Node, ServerDetail, ServerPage, SoftwareSyncResult, Team } from '../support/api-types.js';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { FakeUpstream } from '../support/fake-upstream.js';
import type { ApiClient } from '../support/http.js';
import { runBuilt } from '../support/run-program.js';
import { waitFor } from '../support/wait-for.js';

/**
 * `cairn create server` for modded servers in the built `cairn` (`npm run build` first): `--build`
 * picks a Fabric loader (a local meta API; launchers are any bytes, the fake Agent runs nothing),
 * and `--modpack` refuses the flags a pack fixes before asking the Controller anything.
 */
describe('cairn create server: --template fabric --build LOADER, and --modpack usage errors', function () {
  this.timeout(60_000);
  let upstream: FakeUpstream;
  let t: TestController;
  let admin: ApiClient;
  let agent: FakeAgent;
  let env: NodeJS.ProcessEnv;
  const cairn = (args: string[]) => runBuilt('cli', args, { env });
  const ok = async (args: string[]) => {
    const res = await cairn(args);
    expect(res.code, `cairn ${args.join(' ')}\n${res.stderr}`).to.equal(0);
    return res.stdout;
  };
  const detail = async (name: string) => {
    const item = (await admin.get<ServerPage>('/servers')).body.items.find((s) => s.name === name);
    expect(item, `server ${name}`).to.not.equal(undefined);
    return (await admin.get<ServerDetail>(`/servers/${item!.id}`)).body;
  };
  const create = (name: string, ...software: string[]) =>
    ['create', 'server', name, '--team', 'Ops', ...software, '--cpu', '100m', '--memory', '64Mi', '--node', 'node-1'];

  before(async () => {
    upstream = await FakeUpstream.start();
    upstream.mojang = [{ id: '1.21.4', type: 'release', java: 21, bytes: randomBytes(32) }];
    const launchers = new Map(['0.16.10', '0.16.9'].map((loader) => [loader, randomBytes(64)]));
    upstream.fabric = {
      games: [{ version: '1.21.4', stable: true }],
      loaders: [{ version: '0.17.0-beta.1', stable: false }, { version: '0.16.10', stable: true }, { version: '0.16.9', stable: true }],
      installers: [{ version: '1.0.1', stable: true }],
      launcher: (_game, loader) => launchers.get(loader),
    };
    t = await startTestController({ extraArgs: upstream.controllerArgs });
    ({ admin } = await setupAdmin(t));
    const synced = await admin.post<SoftwareSyncResult>('/software/sync');
    expect(synced.body.sources.find((s) => s.source === 'fabric'), synced.text).to.deep.include({ ok: true, versionCount: 1 });
    expect((await admin.post<Team>('/teams', { name: 'Ops' })).status).to.equal(201);
    agent = await FakeAgent.connect(admin, t.controller.grpcPort, 'node-1');
    await waitFor(async () => (await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.acceptsPlacements, { what: 'node-1 to accept placements' });
    const token = (await admin.post<CreatedApiToken>('/me/tokens', { name: 'cli-modded' })).body.token;
    env = { CAIRN_URL: t.baseUrl, CAIRN_TOKEN: token, CAIRN_CREDENTIALS: '/nonexistent/cairn-credentials.json' };
  });
  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    agent?.stop();
    await t?.dispose();
    await upstream?.close();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  it('--build names the loader version; without it the server gets the newest stable loader; describe shows it', async () => {
    expect(await ok(create('fabric-old', '--template', 'fabric', '--version', '1.21.4', '--build', '0.16.9'))).to.equal('server/fabric-old created\n');
    expect((await detail('fabric-old')).software).to.deep.equal({ template: 'fabric', version: '1.21.4', build: '0.16.9' });
    expect(await ok(create('fabric-new', '--template', 'fabric', '--version', '1.21.4'))).to.equal('server/fabric-new created\n');
    expect((await detail('fabric-new')).software).to.deep.equal({ template: 'fabric', version: '1.21.4', build: '0.16.10' });
    expect(await ok(['describe', 'server', 'fabric-old'])).to.match(/^Software:\s+fabric 1\.21\.4 \(build 0\.16\.9\)$/m);
  });

  it('a loader the template does not list is the API\'s refusal naming software.build (exit 1)', async () => {
    const res = await cairn(create('fabric-none', '--template', 'fabric', '--version', '1.21.4', '--build', '9.9.9'));
    expect(res.code, res.stderr).to.equal(1);
    expect(res.stderr).to.match(/^Error from server \(\w+\): .*software\.build/);
  });

  it('--modpack with --template, --version or --build, a malformed SLUG:VERSION, or no software at all: usage errors (exit 2) before any request', async () => {
    const cases: [string[], RegExp][] = [
      [['--modpack', 'cobblemon', '--template', 'fabric'], /--modpack cannot be combined with --template: the pack's version fixes the template, game version and loader/],
      [['--modpack', 'cobblemon:abc', '--version', '1.21.4', '--build', '0.16.9'], /--modpack cannot be combined with --version, --build/],
      [['--modpack', 'cobblemon:a:b'], /--modpack cobblemon:a:b: give SLUG or SLUG:VERSION/],
      [['--modpack', 'cobblemon:'], /give SLUG or SLUG:VERSION/],
      [['--modpack', ':abc'], /give SLUG or SLUG:VERSION/],
      [['--template', 'fabric'], /give --template and --version .* or --modpack SLUG\[:VERSION\]/],
      [[], /give --template and --version/],
    ];
    const before = (await admin.get<ServerPage>('/servers')).body.items.length;
    for (const [flags, message] of cases) {
      const res = await runBuilt('cli', create('pack', ...flags), { env: { ...env, CAIRN_URL: 'http://127.0.0.1:9' } });
      expect(res.code, `${flags.join(' ')}: ${res.stderr}`).to.equal(2);
      expect(res.stderr, flags.join(' ')).to.match(message);
    }
    expect((await admin.get<ServerPage>('/servers')).body.items.length, 'nothing created').to.equal(before);
  });

  it('--modpack SLUG:VERSION sends template modrinth with version "<slug>:<id>"; --modpack SLUG the newest version the Controller lists for the project', async () => {
    // In front of the Controller: answers the pack's versions as the modpacks API does, and keeps what `create server` posts.
    const posted: unknown[] = [];
    const front = createServer((req, res) => void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const url = new URL(req.url ?? '/', 'http://front');
      if (url.pathname === '/api/v1/templates/modrinth/versions') {
        const items = url.searchParams.get('project') === 'cobblemon' ? [{ version: 'cobblemon:New22', name: '1.6.1', game: '1.21.4', loader: { template: 'fabric', build: '0.16.10' } }, { version: 'cobblemon:Old11', name: '1.6.0' }] : [];
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items: items.slice(0, Number(url.searchParams.get('limit') ?? 20)) }));
      }
      if (req.method === 'POST' && url.pathname === '/api/v1/servers') posted.push(JSON.parse(Buffer.concat(chunks).toString()));
      const answer = await fetch(`${t.baseUrl}${req.url}`, { method: req.method, headers: { authorization: req.headers.authorization ?? '', 'content-type': 'application/json' }, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) });
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await answer.arrayBuffer()));
    })());
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    try {
      const via = { ...env, CAIRN_URL: `http://127.0.0.1:${(front.address() as AddressInfo).port}` };
      const pinned = await runBuilt('cli', create('pack-pinned', '--modpack', 'cobblemon:Old11'), { env: via });
      const newest = await runBuilt('cli', create('pack-newest', '--modpack', 'cobblemon'), { env: via });
      const none = await runBuilt('cli', create('pack-none', '--modpack', 'nothing-here'), { env: via });
      expect(posted.map((b) => (b as { name: string; software: unknown }).software), `${pinned.stderr}\n${newest.stderr}`).to.deep.equal([
        { template: 'modrinth', version: 'cobblemon:Old11' },
        { template: 'modrinth', version: 'cobblemon:New22' },
      ]);
      expect(none.code).to.equal(1);
      expect(none.stderr).to.include('modpack nothing-here lists no versions');
    } finally {
      front.closeAllConnections();
      await new Promise((resolve) => front.close(resolve));
    }
  });
});
