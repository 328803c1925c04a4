import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HangarProject, HangarVersion } from '../../src/controller/adapters/plugins/hangar.js';
import type { ModrinthProject, ModrinthVersion } from '../../src/controller/adapters/plugins/modrinth.js';
import { buildPluginJar } from '../../src/controller/adapters/plugins/plugin-jar.js';

const fixture = async <T>(path: string) => JSON.parse(await readFile(new URL(`../fixtures/catalog/${path}`, import.meta.url), 'utf8')) as T;
const sha512 = (b: Buffer) => createHash('sha512').update(b).digest('hex');

/** A Fabric mod in Modrinth's shapes: server-side, loaders ["fabric"], one version for 1.21.4. */
const fabricMod = (base: string, jar: Buffer): { project: ModrinthProject; version: ModrinthVersion } => ({
  project: {
    id: 'FaBr1cM0', slug: 'fake-lithium', title: 'Fake Lithium', description: 'A server-side optimisation mod (test double).', project_type: 'mod',
    downloads: 9_000_000, updated: '2024-12-20T10:00:00Z', license: { id: 'LGPL-3.0-only', name: 'GNU LGPL v3' }, versions: ['fbrV0001'],
  },
  version: {
    id: 'fbrV0001', project_id: 'FaBr1cM0', version_number: '0.14.3', game_versions: ['1.21.4'], loaders: ['fabric'], date_published: '2024-12-20T09:59:00Z',
    status: 'listed', dependencies: [],
    files: [{ hashes: { sha512: sha512(jar), sha1: 'unused' }, url: `${base}/jars/fake-lithium-0.14.3.jar`, filename: 'fake-lithium-0.14.3.jar', primary: true, size: jar.length }],
  },
});

/**
 * A local stand-in for Modrinth's API v2 (`/search` with `facets` and `index=downloads`,
 * `/projects?ids=`, `/versions?ids=`) and Hangar's API v1 (`/projects?sort=-downloads&limit&offset`,
 * `/projects/{slug}/versions`), in their documented shapes, from the recorded responses in
 * test/fixtures/catalog plus a Fabric mod. LuckPerms' Paper jar and the mod's jar are served here,
 * listed with their real sha512, so an install can check them.
 */
export class FakeCatalogApis {
  /** Answer API requests with 503: every one (true), or one source's. */
  down: boolean | 'modrinth' | 'hangar' = false;
  /** Answer this many next Modrinth requests with 429 and `Retry-After: 0`. */
  throttle = 0;
  readonly requests: string[] = [];
  private readonly jars = new Map<string, Buffer>();

  private constructor(
    private readonly server: Server,
    readonly base: string,
    private readonly modrinthProjects: ModrinthProject[],
    private readonly modrinthVersions: ModrinthVersion[],
    private readonly hangar: { project: HangarProject; versions: HangarVersion[] }[],
  ) {}

  static async start(): Promise<FakeCatalogApis> {
    const handler: { apis?: FakeCatalogApis } = {};
    const server = createServer((req, res) => handler.apis?.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const luckPermsJar = await buildPluginJar({ name: 'LuckPerms', version: '5.4.145', description: 'test double' });
    const modJar = await buildPluginJar({ name: 'FakeLithium', version: '0.14.3', description: 'test double' });
    const mod = fabricMod(base, modJar);
    const versions = [
      ...await fixture<ModrinthVersion[]>('modrinth/versions-Vebnzrzj.json'),
      ...await fixture<ModrinthVersion[]>('modrinth/versions-K3c4b0Qe.json'),
      mod.version,
    ];
    // LuckPerms' Bukkit build is served from here with its true checksum; the rest keep the recorded values.
    const lp = versions.find((v) => v.id === 'b2d5fBnE')!;
    lp.files = [{ ...lp.files[0], url: `${base}/jars/LuckPerms-Bukkit-5.4.145.jar`, hashes: { sha512: sha512(luckPermsJar) }, size: luckPermsJar.length }];
    const hangar = await Promise.all(['ViaVersion', 'ViaBackwards'].map(async (slug) => ({
      project: await fixture<HangarProject>(`hangar/project-${slug}.json`),
      versions: (await fixture<{ result: HangarVersion[] }>(`hangar/versions-${slug}.json`)).result,
    })));
    handler.apis = new FakeCatalogApis(server, base, [...await fixture<ModrinthProject[]>('modrinth/projects.json'), mod.project], versions, hangar);
    handler.apis.jars.set('LuckPerms-Bukkit-5.4.145.jar', luckPermsJar);
    handler.apis.jars.set('fake-lithium-0.14.3.jar', modJar);
    return handler.apis;
  }

  get modrinthBase(): string {
    return `${this.base}/modrinth/v2`;
  }

  get hangarBase(): string {
    return `${this.base}/hangar/api/v1`;
  }

  /** `--software-source` flags: the test Controller's closed-port bases, with Modrinth and Hangar here. */
  controllerArgs(): string[] {
    const others = (process.env.CAIRN_SOFTWARE_SOURCES ?? '').split(',').filter((e) => e !== '' && !/^(modrinth|hangar)=/.test(e));
    return [...others, `modrinth=${this.modrinthBase}`, `hangar=${this.hangarBase}`].flatMap((e) => ['--software-source', e]);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.base);
    this.requests.push(`${url.pathname}${url.search}`);
    const json = (body: unknown): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const jar = /^\/jars\/([^/]+)$/.exec(url.pathname);
    if (jar) {
      const bytes = this.jars.get(jar[1]);
      return void (bytes ? res.writeHead(200, { 'content-length': bytes.length }).end(bytes) : res.writeHead(404).end());
    }
    if (this.down === true || (this.down && url.pathname.startsWith(`/${this.down}/`))) return void res.writeHead(503).end('down');
    const ids = () => JSON.parse(url.searchParams.get('ids') ?? '[]') as string[];
    if (url.pathname.startsWith('/modrinth/v2/') && this.throttle > 0) {
      this.throttle--;
      return void res.writeHead(429, { 'retry-after': '0' }).end();
    }
    switch (url.pathname) {
      case '/modrinth/v2/search': {
        const facets = JSON.parse(url.searchParams.get('facets') ?? '[]') as string[][];
        const type = facets.flat().find((f) => f.startsWith('project_type:'))?.slice('project_type:'.length);
        const limit = Number(url.searchParams.get('limit') ?? 10);
        const hits = this.modrinthProjects.filter((p) => p.project_type === type).sort((a, b) => b.downloads - a.downloads).slice(0, limit)
          .map((p) => ({ project_id: p.id, slug: p.slug, title: p.title, project_type: p.project_type, downloads: p.downloads }));
        return json({ hits, offset: 0, limit, total_hits: hits.length });
      }
      case '/modrinth/v2/projects':
        return json(this.modrinthProjects.filter((p) => ids().includes(p.id)));
      case '/modrinth/v2/versions':
        return json(this.modrinthVersions.filter((v) => ids().includes(v.id)));
      case '/hangar/api/v1/projects': {
        const offset = Number(url.searchParams.get('offset') ?? 0);
        const limit = Number(url.searchParams.get('limit') ?? 25);
        const all = [...this.hangar].sort((a, b) => b.project.stats.downloads - a.project.stats.downloads);
        return json({ pagination: { limit, offset, count: all.length }, result: all.slice(offset, offset + limit).map((e) => e.project) });
      }
      default: {
        const versions = /^\/hangar\/api\/v1\/projects\/([^/]+)\/versions$/.exec(url.pathname);
        const entry = versions && this.hangar.find((e) => e.project.namespace.slug === decodeURIComponent(versions[1]));
        if (entry) return json({ pagination: { limit: 10, offset: 0, count: entry.versions.length }, result: entry.versions });
        res.writeHead(404).end();
      }
    }
  }
}
