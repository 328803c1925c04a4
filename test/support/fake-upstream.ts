import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeBuild {
  id: number;
  channel: 'STABLE' | 'BETA' | 'ALPHA';
  bytes: Buffer;
  /** Listed instead of the bytes' own sha256: a build whose download does not match its listing. */
  listedSha256?: string;
}

export interface FakePaperVersion {
  id: string;
  java: number;
  /** Newest first, as Fill lists them. */
  builds: FakeBuild[];
}

export interface FakeMojangVersion {
  id: string;
  type: 'release' | 'snapshot' | 'old_beta';
  java?: number;
  /** No server download when absent (the oldest releases). */
  bytes?: Buffer;
}

export interface FakeFabricVersion {
  version: string;
  stable: boolean;
}

/** What the fake meta.fabricmc.net v2 lists, newest first as Fabric does; empty lists by default. */
export interface FakeFabric {
  games: FakeFabricVersion[];
  loaders: FakeFabricVersion[];
  installers: FakeFabricVersion[];
  /** The server launcher's bytes for a game, loader and installer version (none: 404); a test may change them. */
  launcher?: (game: string, loader: string, installer: string) => Buffer | undefined;
}

const sha = (algorithm: 'sha256' | 'sha1', b: Buffer) => createHash(algorithm).update(b).digest('hex');

/**
 * A local stand-in for PaperMC's Fill v3, Mojang's piston-meta and Fabric's meta API v2, serving the documented shapes
 * (`/v3/projects/{p}`, `/versions`, `/versions/{v}`, `/versions/{v}/builds`, `builds/latest`,
 * `downloads["server:default"]` with `checksums.sha256`; `version_manifest_v2.json` and each
 * version's JSON with `downloads.server.sha1` and `javaVersion.majorVersion`; `/v2/versions/game`, `/v2/versions/loader`, `/v2/versions/installer`
 * and `/v2/versions/loader/{game}/{loader}/{installer}/server/jar`) and the jars. It
 * records every request with its User-Agent, so tests see what reached the upstream.
 */
export class FakeUpstream {
  readonly paper = new Map<string, FakePaperVersion[]>();
  mojang: FakeMojangVersion[] = [];
  fabric: FakeFabric = { games: [], loaders: [], installers: [] };
  readonly requests: { path: string; userAgent: string }[] = [];
  /** Answer every request with this status instead (an upstream that is down). */
  failWith?: number;
  /** Hold every jar download unanswered until `releaseStalled` (an upstream that stalls). */
  stallJars = false;
  private readonly stalled: (() => void)[] = [];

  private constructor(private readonly server: Server, readonly base: string) {}

  static async start(): Promise<FakeUpstream> {
    const handler: { upstream?: FakeUpstream } = {};
    const server = createServer((req, res) => handler.upstream?.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    handler.upstream = new FakeUpstream(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return handler.upstream;
  }

  get papermcBase(): string {
    return `${this.base}/v3`;
  }

  get mojangManifest(): string {
    return `${this.base}/mc/version_manifest_v2.json`;
  }

  get fabricBase(): string {
    return `${this.base}/v2`;
  }

  /** `--software-source` flags pointing the Controller here. */
  get controllerArgs(): string[] {
    return ['--software-source', `papermc=${this.papermcBase}`, '--software-source', `mojang=${this.mojangManifest}`, '--software-source', `fabric=${this.fabricBase}`];
  }

  /** How many requests asked for a path matching `pattern`. */
  count(pattern: RegExp): number {
    return this.requests.filter((r) => pattern.test(r.path)).length;
  }

  /** Answers the jar downloads held so far. */
  releaseStalled(): void {
    for (const answer of this.stalled.splice(0)) answer();
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', this.base).pathname;
    this.requests.push({ path, userAgent: req.headers['user-agent'] ?? '' });
    if (this.failWith) return void res.writeHead(this.failWith).end();
    const answer = this.answer(path.split('/').filter(Boolean).map(decodeURIComponent));
    if (answer === undefined) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    if (Buffer.isBuffer(answer)) {
      const send = () => void res.writeHead(200, { 'content-type': 'application/java-archive', 'content-length': answer.length }).end(answer);
      if (this.stallJars) return void this.stalled.push(send);
      return send();
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  }

  private answer(parts: (string | undefined)[]): unknown {
    if (parts[0] === 'v3' && parts[1] === 'projects') return this.fill(parts.slice(2));
    if (parts[0] === 'objects') return this.jar(parts[1]);
    if (parts[0] === 'mc') return this.pistonMeta(parts.slice(1));
    if (parts[0] === 'v2' && parts[1] === 'versions') return this.fabricMeta(parts.slice(2));
    return undefined;
  }

  /** meta.fabricmc.net v2 as documented (https://github.com/FabricMC/fabric-meta): the fields Fabric answers with. */
  private fabricMeta([kind, game, loader, installer, side, file, ...rest]: (string | undefined)[]): unknown {
    const { games, loaders, installers } = this.fabric;
    if (game === undefined) {
      if (kind === 'game') return games.map((g) => ({ version: g.version, stable: g.stable }));
      if (kind === 'loader') return loaders.map((l, i) => ({ separator: '.', build: loaders.length - i, maven: `net.fabricmc:fabric-loader:${l.version}`, version: l.version, stable: l.stable }));
      if (kind === 'installer') return installers.map((v) => ({ url: `${this.base}/maven/fabric-installer-${v.version}.jar`, maven: `net.fabricmc:fabric-installer:${v.version}`, version: v.version, stable: v.stable }));
      return undefined;
    }
    if (kind !== 'loader' || !loader || !installer || side !== 'server' || file !== 'jar' || rest.length) return undefined;
    return this.fabric.launcher?.(game, loader, installer);
  }

  private fill([project, section, version, sub, which]: (string | undefined)[]): unknown {
    const versions = project === undefined ? undefined : this.paper.get(project);
    if (!versions) return undefined;
    const versionJson = (v: FakePaperVersion) => ({
      version: { id: v.id, support: { status: 'SUPPORTED' }, java: { version: { minimum: v.java }, flags: { recommended: ['-XX:+UseG1GC'] } } },
      builds: v.builds.map((b) => b.id),
    });
    if (section === undefined) return { project: { id: project, name: project }, versions: { [versions[0]?.id.split('.').slice(0, 2).join('.') ?? '1']: versions.map((v) => v.id) } };
    if (section !== 'versions') return undefined;
    if (version === undefined) return { versions: versions.map(versionJson) };
    const v = versions.find((x) => x.id === version);
    if (!v) return undefined;
    if (sub === undefined) return versionJson(v);
    if (sub !== 'builds') return undefined;
    const buildJson = (b: FakeBuild) => ({
      id: b.id, time: '2026-11-01T00:00:00Z', channel: b.channel, commits: [],
      downloads: { 'server:default': { name: `${project}-${v.id}-${b.id}.jar`, checksums: { sha256: b.listedSha256 ?? sha('sha256', b.bytes) }, size: b.bytes.length, url: `${this.base}/objects/${sha('sha256', b.bytes)}` } },
    });
    if (which === 'latest') return v.builds[0] ? buildJson(v.builds[0]) : undefined;
    return which === undefined ? v.builds.map(buildJson) : undefined;
  }

  private pistonMeta([first, id]: (string | undefined)[]): unknown {
    if (first === 'version_manifest_v2.json') {
      const latest = this.mojang.find((v) => v.type === 'release')?.id;
      return {
        latest: { release: latest, snapshot: this.mojang[0]?.id },
        versions: this.mojang.map((v) => ({ id: v.id, type: v.type, url: `${this.base}/mc/v/${v.id}.json`, time: '2026-11-01T00:00:00+00:00', releaseTime: '2026-11-01T00:00:00+00:00', sha1: '0'.repeat(40), complianceLevel: 1 })),
      };
    }
    if (first !== 'v' || !id?.endsWith('.json')) return undefined;
    const v = this.mojang.find((x) => `${x.id}.json` === id);
    if (!v) return undefined;
    return {
      id: v.id, type: v.type,
      downloads: {
        client: { sha1: '1'.repeat(40), size: 1, url: `${this.base}/objects/none` },
        ...(v.bytes ? { server: { sha1: sha('sha1', v.bytes), size: v.bytes.length, url: `${this.base}/objects/${sha('sha256', v.bytes)}` } } : {}),
      },
      ...(v.java ? { javaVersion: { component: 'java-runtime-delta', majorVersion: v.java } } : {}),
    };
  }

  private jar(sha256: string | undefined): Buffer | undefined {
    for (const versions of this.paper.values()) for (const v of versions) for (const b of v.builds) if (sha('sha256', b.bytes) === sha256) return b.bytes;
    return this.mojang.find((v) => v.bytes && sha('sha256', v.bytes) === sha256)?.bytes;
  }
}
