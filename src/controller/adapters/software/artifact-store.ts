import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { access, mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import type { BlobStore } from '../../../shared/backup/blob-store.js';
import type { Logger } from '../../../shared/logger.js';
import type { ArtifactDownloadSpec } from '../../schemas/software.js';
import { fetchFailureWords, isTimeout, softwareDownloadFailure, type DownloadFailureKind } from './fetch-failure-words.js';
import { upstreamUserAgent } from './upstream-http.js';

/** The bytes at a download URL are not the artifact the catalog describes, or cannot be fetched. */
export class ArtifactUnavailableError extends Error {
  override name = 'ArtifactUnavailableError';
  /** For server software: the message as a server's condition shows it, words first (`softwareDownloadFailure`). */
  explained?: string;

  constructor(message: string, readonly kind: DownloadFailureKind = 'other') {
    super(message);
  }
}

export interface ArtifactSource {
  sha256: string;
  sizeBytes: number;
  /** http(s) or file URL; absent for uploads, which are stored when received. */
  url?: string;
}

/** A whole download's deadline; tests shorten it. */
const defaultDownloadTimeoutMs = 120_000;
/** A server jar whose upstream lists no size is refused past this (the largest are ~60 MB). */
const maxUnsizedBytes = 1024 * 2 ** 20;

/**
 * Jars by sha256 under `<data-dir>/artifacts/`: uploads are stored as they arrive, catalog jars
 * are fetched from their download URL the first time a Node needs them (checked against the
 * catalog's sha256 and size) and kept, so Nodes never need the internet. With a `shared` store
 * (GridFS on MongoDB) that store holds the jars and the directory is only a cache: a Controller
 * without its old data dir, or another Controller, finds every upload there.
 */
export class ArtifactStore {
  private readonly fetching = new KeyedMutex();

  constructor(readonly dir: string, private readonly logger: Logger, private readonly shared?: BlobStore, private readonly downloadTimeoutMs = defaultDownloadTimeoutMs) {}

  path(sha256: string): string {
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new ArtifactUnavailableError(`not a sha256: ${sha256}`);
    return join(this.dir, `${sha256}.jar`);
  }

  /** A temporary file in the store's directory, so a finished one can be renamed into place. */
  async tempPath(): Promise<string> {
    await mkdir(join(this.dir, 'tmp'), { recursive: true, mode: 0o700 });
    return join(this.dir, 'tmp', randomUUID());
  }

  async has(sha256: string): Promise<boolean> {
    return access(this.path(sha256)).then(() => true, () => false);
  }

  /** Moves a file whose sha256 the caller computed into the store (and the shared store, which checks it). */
  async adopt(tempFile: string, sha256: string): Promise<void> {
    await rename(tempFile, this.path(sha256));
    await this.shared?.putBlob(sha256, createReadStream(this.path(sha256)));
  }

  /** The artifact's path, fetching and checking it first when the store has no copy. */
  async ensure(source: ArtifactSource): Promise<string> {
    const target = this.path(source.sha256);
    if (await this.has(source.sha256)) return target;
    return this.fetching.run(source.sha256, async () => {
      if (await this.has(source.sha256)) return target;
      if (await this.shared?.hasBlob(source.sha256)) return this.fromShared(source.sha256);
      if (!source.url) throw new ArtifactUnavailableError(`no copy of ${source.sha256} and nowhere to fetch it from`);
      const temp = await this.tempPath();
      try {
        const { sha256, size } = await this.download(source.url, temp, source.sizeBytes);
        if (size !== source.sizeBytes || sha256 !== source.sha256) {
          throw new ArtifactUnavailableError(`${source.url} gave ${size} bytes with sha256 ${sha256}; the catalog says ${source.sizeBytes} bytes with ${source.sha256}`);
        }
        await rename(temp, target);
        this.logger.info({ event: 'artifact_fetched', sha256, url: source.url }, 'plugin jar fetched and verified');
        await this.shared?.putBlob(sha256, createReadStream(target));
        return target;
      } finally {
        await rm(temp, { force: true });
      }
    });
  }

  /** Copies a jar from the shared store into the cache; the shared store checks its sha256 as it streams. */
  private async fromShared(sha256: string): Promise<string> {
    const temp = await this.tempPath();
    try {
      await pipeline(this.shared!.readBlob(sha256), createWriteStream(temp, { mode: 0o600 }));
      await rename(temp, this.path(sha256));
      return this.path(sha256);
    } finally {
      await rm(temp, { force: true });
    }
  }

  /**
   * A game server's artifact (an upstream's download): fetched once, checked against every
   * checksum the upstream lists (sha256 for PaperMC, sha1 for Mojang) and its size when listed,
   * kept by that checksum. Answers its path.
   */
  async ensureDownload(download: ArtifactDownloadSpec): Promise<string> {
    const key = download.sha256 ?? (download.sha1 ? `sha1-${download.sha1}` : undefined);
    if (!key || !/^(sha1-[0-9a-f]{40}|[0-9a-f]{64})$/.test(key)) throw new ArtifactUnavailableError(`${download.url} has no checksum to verify it with`);
    const target = join(this.dir, `${key}.jar`);
    if (await access(target).then(() => true, () => false)) return target;
    return this.fetching.run(key, async () => {
      if (await access(target).then(() => true, () => false)) return target;
      const temp = await this.tempPath();
      try {
        // A pinned size is only what the first download had: a changed download is let in whole, so its sha256 can be named.
        const got = await this.download(download.url, temp, (download.pinnedAt ? undefined : download.size) ?? maxUnsizedBytes);
        const wrong = (download.sha256 && got.sha256 !== download.sha256 && `sha256 ${got.sha256}, not ${download.sha256}`)
          || (download.sha1 && got.sha1 !== download.sha1 && `sha1 ${got.sha1}, not ${download.sha1}`)
          || (download.size !== undefined && got.size !== download.size && `${got.size} bytes, not ${download.size}`);
        const against = download.pinnedAt ? `as pinned at its first download (${download.pinnedAt})` : 'as listed';
        if (wrong) throw new ArtifactUnavailableError(`checksum mismatch: ${download.url} gave ${wrong} ${against}; nothing unverified is kept or run`, download.pinnedAt ? 'pinned' : 'checksum');
        await rename(temp, target);
        this.logger.info({ event: 'artifact_fetched', key, url: download.url }, 'server software fetched and verified');
        return target;
      } catch (e) {
        if (e instanceof ArtifactUnavailableError) e.explained = softwareDownloadFailure(download.url, e.kind, e.message);
        throw e;
      } finally {
        await rm(temp, { force: true });
      }
    });
  }

  /**
   * A download whose upstream publishes no checksum (Fabric's launcher): fetched once, within the
   * size bound of an unsized download, and kept by the sha256 it turned out to have, which the
   * caller pins. Answers that sha256 and size.
   */
  async pinDownload(url: string): Promise<{ sha256: string; size: number }> {
    const temp = await this.tempPath();
    try {
      const { sha256, size } = await this.download(url, temp, maxUnsizedBytes);
      await rename(temp, join(this.dir, `${sha256}.jar`));
      this.logger.info({ event: 'artifact_pinned', sha256, url }, 'server software without a published checksum fetched; its sha256 is pinned');
      return { sha256, size };
    } catch (e) {
      if (e instanceof ArtifactUnavailableError) e.explained = softwareDownloadFailure(url, e.kind, e.message);
      throw e;
    } finally {
      await rm(temp, { force: true });
    }
  }

  /** Streams a stored artifact; `size` is its length. */
  async open(sha256: string): Promise<{ stream: Readable; size: number }> {
    const path = this.path(sha256);
    const { size } = await stat(path);
    return { stream: createReadStream(path, { highWaterMark: 256 * 1024 }), size };
  }

  private async download(url: string, temp: string, expectedBytes: number): Promise<{ sha256: string; sha1: string; size: number }> {
    let body: Readable;
    if (url.startsWith('file:')) {
      body = createReadStream(fileURLToPath(url));
    } else {
      const res = await fetch(url, { signal: AbortSignal.timeout(this.downloadTimeoutMs), redirect: 'follow', headers: { 'user-agent': upstreamUserAgent } }).catch((e: unknown) => {
        throw new ArtifactUnavailableError(fetchFailureWords(url, e, this.downloadTimeoutMs), 'unreachable');
      });
      if (!res.ok || !res.body) throw new ArtifactUnavailableError(`HTTP ${res.status} from ${url}`, 'status');
      body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
    }
    const hash = createHash('sha256');
    const sha1 = createHash('sha1');
    let size = 0;
    // Never store more than the catalog promised: a wrong or hostile URL cannot fill the disk.
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (size > expectedBytes) return done(new ArtifactUnavailableError(`${url} is larger than the ${expectedBytes} bytes the catalog says`));
        hash.update(chunk);
        sha1.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await pipeline(body, counter, createWriteStream(temp, { mode: 0o600 }));
    } catch (e) {
      if (e instanceof ArtifactUnavailableError) throw e;
      // The headers came: a deadline passing now is a download that stalled or crawled, not a host that never answered.
      if (isTimeout(e)) throw new ArtifactUnavailableError(`${url} did not finish sending within ${this.downloadTimeoutMs / 1000} s (${size} bytes came)`);
      throw new ArtifactUnavailableError(fetchFailureWords(url, e, this.downloadTimeoutMs), 'unreachable');
    }
    return { sha256: hash.digest('hex'), sha1: sha1.digest('hex'), size };
  }
}
