import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeInstaller {
  /** The Maven version: `21.4.136` (NeoForge), `1.21.4-54.0.12` (Forge). */
  version: string;
  bytes: Buffer;
  /** Which checksum files are published beside the jar (default: both). */
  published?: ('sha256' | 'sha1')[];
  /** Published instead of the bytes' own sha256: an installer that does not match its checksum file. */
  listedSha256?: string;
}

const sha = (algorithm: 'sha256' | 'sha1', b: Buffer) => createHash(algorithm).update(b).digest('hex');
const paths = { neoforge: 'releases/net/neoforged/neoforge', forge: 'forge/net/minecraftforge/forge' } as const;

/**
 * A local stand-in for the Maven repositories of NeoForge (maven.neoforged.net/releases) and
 * Forge (maven.minecraftforge.net) in their layout: `<group path>/<artifact>/maven-metadata.xml`
 * (`<metadata><versioning><versions><version>…`, oldest first as Maven writes it), each
 * version's `<artifact>-<version>-installer.jar` with its `.sha256` and `.sha1` files, and Forge's
 * `promotions_slim.json` (`{homepage, promos: {"<game>-latest": …, "<game>-recommended": …}}`).
 * It records every request path, so tests see what reached the repository.
 */
export class FakeMaven {
  neoforge: FakeInstaller[] = [];
  forge: FakeInstaller[] = [];
  promotions: Record<string, string> = {};
  readonly requests: string[] = [];
  /** Answer every request with this status instead (a repository that is down). */
  failWith?: number;

  private constructor(private readonly server: Server, readonly base: string) {}

  static async start(): Promise<FakeMaven> {
    const handler: { maven?: FakeMaven } = {};
    const server = createServer((req, res) => handler.maven?.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    handler.maven = new FakeMaven(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return handler.maven;
  }

  /** `--software-source` flags pointing the Controller here. */
  get controllerArgs(): string[] {
    return ['--software-source', `neoforge=${this.base}/releases`, '--software-source', `forge=${this.base}/forge`];
  }

  count(pattern: RegExp): number {
    return this.requests.filter((p) => pattern.test(p)).length;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = decodeURIComponent(new URL(req.url ?? '/', this.base).pathname);
    this.requests.push(path);
    if (this.failWith) return void res.writeHead(this.failWith).end();
    const answer = this.answer(path);
    if (answer === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
    const type = Buffer.isBuffer(answer) ? 'application/java-archive' : path.endsWith('.json') ? 'application/json' : path.endsWith('.xml') ? 'application/xml' : 'text/plain';
    res.writeHead(200, { 'content-type': type }).end(answer);
  }

  private answer(path: string): Buffer | string | undefined {
    for (const kind of ['neoforge', 'forge'] as const) {
      const root = `/${paths[kind]}/`;
      if (!path.startsWith(root)) continue;
      const rest = path.slice(root.length);
      if (rest === 'maven-metadata.xml') return this.metadata(kind);
      if (kind === 'forge' && rest === 'promotions_slim.json') return JSON.stringify({ homepage: 'https://files.minecraftforge.net/', promos: this.promotions });
      const m = /^([^/]+)\/([a-z]+)-([^/]+)-installer\.jar(\.sha256|\.sha1)?$/.exec(rest);
      const installer = m && m[1] === m[3] && m[2] === kind ? this[kind].find((i) => i.version === m[1]) : undefined;
      if (!installer) return undefined;
      if (!m![4]) return installer.bytes;
      const algorithm = m![4] === '.sha256' ? 'sha256' : 'sha1';
      if (!(installer.published ?? ['sha256', 'sha1']).includes(algorithm)) return undefined;
      return algorithm === 'sha256' ? installer.listedSha256 ?? sha('sha256', installer.bytes) : sha('sha1', installer.bytes);
    }
    return undefined;
  }

  private metadata(kind: 'neoforge' | 'forge'): string {
    const versions = this[kind].map((i) => `      <version>${i.version}</version>`).join('\n');
    const group = kind === 'neoforge' ? 'net.neoforged' : 'net.minecraftforge';
    return `<?xml version="1.0" encoding="UTF-8"?>\n<metadata>\n  <groupId>${group}</groupId>\n  <artifactId>${kind}</artifactId>\n  <versioning>\n    <latest>${this[kind].at(-1)?.version ?? ''}</latest>\n    <release>${this[kind].at(-1)?.version ?? ''}</release>\n    <versions>\n${versions}\n    </versions>\n    <lastUpdated>20261129000000</lastUpdated>\n  </versioning>\n</metadata>\n`;
  }
}
