import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import yazl from 'yazl';

export interface FakePackFile {
  path: string;
  bytes: Buffer;
  /** `env.server`; `unsupported` marks a client-only file. */
  server?: 'required' | 'optional' | 'unsupported';
  /** Listed instead of the bytes' own: a file that does not match the pack's index. */
  listedSha512?: string;
  listedSize?: number;
  /** Where the index says to download it instead of this fake (a host the format does not allow). */
  downloads?: string[];
}

export interface FakePackVersion {
  id: string;
  versionNumber: string;
  game: string;
  /** The `dependencies` key naming the loader: `fabric-loader`, `neoforge`, `forge`, `quilt-loader`. */
  loader: string;
  loaderVersion: string;
  files: FakePackFile[];
  /** Zip entries under `overrides/` and `server-overrides/`, by path inside them. */
  overrides?: Record<string, string>;
  serverOverrides?: Record<string, string>;
  /** Other zip entries as they are (a crafted name). */
  extraEntries?: Record<string, string>;
  /** The .mrpack listed with another sha512 than its bytes have. */
  packSha512?: string;
}

const sha = (algorithm: 'sha512' | 'sha1', b: Buffer) => createHash(algorithm).update(b).digest('hex');

/** The .mrpack of a version, its files downloading from `base` (the fake's own origin). */
export async function buildMrpack(version: FakePackVersion, origin: string): Promise<Buffer> {
  const index = {
    formatVersion: 1, game: 'minecraft', versionId: version.versionNumber, name: `Pack ${version.versionNumber}`,
    files: version.files.map((f) => ({
      path: f.path,
      hashes: { sha1: sha('sha1', f.bytes), sha512: f.listedSha512 ?? sha('sha512', f.bytes) },
      ...(f.server ? { env: { client: 'required', server: f.server } } : {}),
      downloads: f.downloads ?? [`${origin}/files/${sha('sha1', f.bytes)}/${encodeURIComponent(f.path.split('/').pop()!)}`],
      fileSize: f.listedSize ?? f.bytes.length,
    })),
    dependencies: { minecraft: version.game, [version.loader]: version.loaderVersion },
  };
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from(JSON.stringify(index)), 'modrinth.index.json');
  for (const [path, text] of Object.entries(version.overrides ?? {})) zip.addBuffer(Buffer.from(text), `overrides/${path}`);
  for (const [path, text] of Object.entries(version.serverOverrides ?? {})) zip.addBuffer(Buffer.from(text), `server-overrides/${path}`);
  for (const [name, text] of Object.entries(version.extraEntries ?? {})) zip.addBuffer(Buffer.from(text), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A local stand-in for Modrinth's API v2 (`/v2/project/{slug}/version`, `/v2/search`) in its
 * documented shapes, serving the `.mrpack` files it lists and the files their indexes name, all at
 * its own host (pass `controllerArgs`, so the Controller allows that host). Records every request.
 */
export class FakeModrinth {
  /** Each project's versions, newest first as Modrinth lists them. */
  readonly projects = new Map<string, FakePackVersion[]>();
  readonly requests: { path: string; query: string; userAgent: string }[] = [];
  failWith?: number;
  private readonly packs = new Map<string, Buffer>();
  private readonly files = new Map<string, Buffer>();

  private constructor(private readonly server: Server, readonly origin: string) {}

  static async start(): Promise<FakeModrinth> {
    const holder: { fake?: FakeModrinth } = {};
    const server = createServer((req, res) => void holder.fake?.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.fake = new FakeModrinth(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return holder.fake;
  }

  get base(): string {
    return `${this.origin}/v2`;
  }

  get controllerArgs(): string[] {
    return ['--software-source', `modrinth=${this.base}`];
  }

  count(pattern: RegExp): number {
    return this.requests.filter((r) => pattern.test(r.path)).length;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async mrpack(slug: string, version: FakePackVersion): Promise<Buffer> {
    const key = `${slug}/${version.id}`;
    let bytes = this.packs.get(key);
    if (!bytes) {
      bytes = await buildMrpack(version, this.origin);
      this.packs.set(key, bytes);
      for (const f of version.files) this.files.set(sha('sha1', f.bytes), f.bytes);
    }
    return bytes;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.origin);
    this.requests.push({ path: url.pathname, query: url.search, userAgent: req.headers['user-agent'] ?? '' });
    if (this.failWith) return void res.writeHead(this.failWith).end();
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const json = (value: unknown) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    const bytes = (b: Buffer) => void res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': b.length }).end(b);
    if (parts[0] === 'v2' && parts[1] === 'project' && parts[3] === 'version' && parts.length === 4) {
      const versions = this.projects.get(parts[2]);
      if (!versions) return void res.writeHead(404).end();
      return json(await Promise.all(versions.map(async (v) => {
        const pack = await this.mrpack(parts[2], v);
        return {
          id: v.id, version_number: v.versionNumber, game_versions: [v.game], loaders: [v.loader.replace(/-loader$/, '')], date_published: '2026-01-01T00:00:00Z',
          files: [{ url: `${this.origin}/packs/${parts[2]}/${v.id}.mrpack`, filename: `${v.id}.mrpack`, primary: true, hashes: { sha512: v.packSha512 ?? sha('sha512', pack), sha1: sha('sha1', pack) }, size: pack.length }],
        };
      })));
    }
    if (parts[0] === 'v2' && parts[1] === 'search') {
      const words = (url.searchParams.get('query') ?? '').toLowerCase();
      const hits = [...this.projects.entries()].filter(([slug]) => slug.includes(words)).map(([slug, versions]) => ({
        slug, title: `Pack ${slug}`, description: `The ${slug} pack`, downloads: 1000, versions: [...new Set(versions.map((v) => v.game))],
        categories: ['adventure', ...new Set(versions.map((v) => v.loader.replace(/-loader$/, '')))], icon_url: null,
      }));
      return json({ hits: hits.slice(0, Number(url.searchParams.get('limit') ?? 10)), offset: 0, limit: 10, total_hits: hits.length });
    }
    if (parts[0] === 'packs' && parts.length === 3) {
      const version = this.projects.get(parts[1])?.find((v) => `${v.id}.mrpack` === parts[2]);
      if (version) return bytes(await this.mrpack(parts[1], version));
    }
    if (parts[0] === 'files' && this.files.has(parts[1])) return bytes(this.files.get(parts[1])!);
    res.writeHead(404).end();
  }
}
