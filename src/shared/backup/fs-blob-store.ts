import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BlobDecoder, BlobEncoder, hashing, shaPattern, verifying } from './blob-encoding.js';
import type { BlobStore, UnnamedBlob } from './blob-store.js';
import type { BackupManifest } from './manifest.js';

const idPattern = /^[A-Za-z0-9-]{1,100}$/;

function checkSha(sha256: string): string {
  if (!shaPattern.test(sha256)) throw new Error(`not a sha256: ${sha256.slice(0, 80)}`);
  return sha256;
}

function checkId(backupId: string): string {
  if (!idPattern.test(backupId)) throw new Error(`not a backup id: ${backupId.slice(0, 80)}`);
  return backupId;
}

/**
 * A content-addressed store in a directory: `blobs/<ab>/<sha256>.blob` (BlobEncoder: gzip only where
 * it pays) and `manifests/<backupId>.json`. Every write goes to a
 * temporary file (`*.partial`), flushed to the disk and renamed into place, so a crash never leaves
 * a half blob under a real name; what a crash does leave, garbage collection removes.
 */
export class FsBlobStore implements BlobStore {
  constructor(readonly root: string) {}

  private blobPath(sha256: string): string {
    return join(this.root, 'blobs', checkSha(sha256).slice(0, 2), `${sha256}.blob`);
  }

  private manifestPath(backupId: string): string {
    return join(this.root, 'manifests', `${checkId(backupId)}.json`);
  }

  async hasBlob(sha256: string): Promise<boolean> {
    return stat(this.blobPath(sha256)).then(() => true, () => false);
  }

  async putBlob(sha256: string, content: AsyncIterable<Uint8Array>): Promise<number> {
    const path = this.blobPath(sha256);
    if (await this.hasBlob(sha256)) {
      // Drain the source anyway: the caller's stream must not stall half read.
      await pipeline(Readable.from(content), new Writable({ write: (_chunk, _enc, done) => done() }));
      return 0;
    }
    await mkdir(join(path, '..'), { recursive: true });
    const temp = `${path}.${randomUUID()}.partial`;
    try {
      // Flushed once per blob before its rename (not per chunk): a backup that SUCCEEDED survives a power cut.
      const file = createWriteStream(temp, { flush: true });
      await pipeline(Readable.from(content), verifying(sha256), new BlobEncoder(), file);
      await rename(temp, path);
      return file.bytesWritten;
    } catch (e) {
      await rm(temp, { force: true });
      throw e;
    }
  }

  /**
   * Written to a temporary file in `blobs/` and renamed once its hash is known. Two puts of the
   * same content at once both rename onto the same name, which leaves one whole blob either way.
   */
  async putUnnamedBlob(content: AsyncIterable<Uint8Array>): Promise<UnnamedBlob> {
    const blobs = join(this.root, 'blobs');
    await mkdir(blobs, { recursive: true });
    const temp = join(blobs, `${randomUUID()}.partial`);
    try {
      const hash = hashing();
      const file = createWriteStream(temp, { flush: true });
      await pipeline(Readable.from(content), hash, new BlobEncoder(), file);
      const path = this.blobPath(hash.sha256);
      if (await this.hasBlob(hash.sha256)) {
        await rm(temp, { force: true });
        return { sha256: hash.sha256, size: hash.bytes, storedBytes: 0 };
      }
      await mkdir(join(path, '..'), { recursive: true });
      await rename(temp, path);
      return { sha256: hash.sha256, size: hash.bytes, storedBytes: file.bytesWritten };
    } catch (e) {
      await rm(temp, { force: true });
      throw e;
    }
  }

  readBlob(sha256: string): Readable {
    const out = new PassThrough();
    const path = this.blobPath(sha256);
    pipeline(createReadStream(path), new BlobDecoder(), verifying(sha256), out).catch((e: unknown) => out.destroy(e as Error));
    return out;
  }

  async deleteBlob(sha256: string): Promise<void> {
    await rm(this.blobPath(sha256), { force: true });
  }

  async *listBlobs(): AsyncIterable<string> {
    const dir = join(this.root, 'blobs');
    for (const prefix of await readdir(dir).catch(() => [] as string[])) {
      for (const name of await readdir(join(dir, prefix)).catch(() => [] as string[])) {
        const sha256 = name.replace(/\.blob$/, '');
        if (shaPattern.test(sha256) && name.endsWith('.blob')) yield sha256;
      }
    }
  }

  async putManifest(manifest: BackupManifest): Promise<void> {
    const path = this.manifestPath(manifest.backupId);
    await mkdir(join(path, '..'), { recursive: true });
    const temp = `${path}.${randomUUID()}.partial`;
    await writeFile(temp, JSON.stringify(manifest), { flush: true });
    await rename(temp, path);
  }

  async readManifest(backupId: string): Promise<BackupManifest | undefined> {
    try {
      return JSON.parse(await readFile(this.manifestPath(backupId), 'utf8')) as BackupManifest;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  async deleteManifest(backupId: string): Promise<void> {
    await rm(this.manifestPath(backupId), { force: true });
  }

  async removePartials(idleMs: number): Promise<number> {
    const before = Date.now() - idleMs;
    const dirs = [join(this.root, 'manifests'), join(this.root, 'blobs')];
    for (const prefix of await readdir(join(this.root, 'blobs')).catch(() => [] as string[])) dirs.push(join(this.root, 'blobs', prefix));
    let removed = 0;
    for (const dir of dirs) {
      for (const name of await readdir(dir).catch(() => [] as string[])) {
        if (!name.endsWith('.partial')) continue;
        const info = await stat(join(dir, name)).catch(() => undefined);
        if (!info || info.mtimeMs > before) continue;
        await rm(join(dir, name), { force: true });
        removed++;
      }
    }
    return removed;
  }

  async *listManifests(): AsyncIterable<string> {
    for (const name of await readdir(join(this.root, 'manifests')).catch(() => [] as string[])) {
      if (name.endsWith('.json')) yield name.slice(0, -'.json'.length);
    }
  }
}
