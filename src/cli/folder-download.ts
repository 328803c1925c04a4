import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, posix } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ServerItem } from './api-types.js';
import type { CliClient } from './client.js';
import { print } from './context.js';
import { ApiError, localFileError, UsageError } from './errors.js';
import { copiedFiles } from './folder-upload.js';
import { unpackZip } from './unpack-zip.js';

/** Whether the server's `path` is a directory: the files API lists it (a file, or nothing there, is refused). */
export async function isRemoteDirectory(client: CliClient, serverId: string, path: string): Promise<boolean> {
  try {
    await client.get(`/servers/${serverId}/files?path=${encodeURIComponent(path === '' ? '.' : path)}`);
    return true;
  } catch (e) {
    if (e instanceof ApiError && [400, 404, 409].includes(e.status)) return false;
    throw e;
  }
}

/** The folder's own name, the first element of every entry of its zip; the root's zip has none. */
const folderName = (path: string) => posix.normalize(path === '' ? '.' : path).split('/').filter((p) => p !== '' && p !== '.').pop() ?? '';

/**
 * `cairn cp NAME:DIR LOCAL`, as `cp -r` does it: into LOCAL/DIR when LOCAL is a directory, else
 * LOCAL made as the copy. The zip (GET files/archive) is kept beside the target while it comes,
 * since a zip's directory is at its end, then unpacked (unpack-zip.ts) and removed. To stdout
 * (`-`) the zip itself is the output.
 */
export async function downloadFolder(client: CliClient, server: ServerItem, path: string, local: string): Promise<void> {
  const res = await client.request('GET', `/servers/${server.id}/files/archive?path=${encodeURIComponent(path === '' ? '.' : path)}`);
  const body = Readable.fromWeb(res.body! as never);
  if (local === '-') {
    await pipeline(body, process.stdout, { end: false });
    return;
  }
  const name = folderName(path);
  const existing = await stat(local).catch(() => undefined);
  if (existing && !existing.isDirectory()) {
    body.destroy();
    throw new UsageError(`${local}: a file is there; a folder is copied into a directory or a new path`);
  }
  const target = existing && name !== '' ? join(local, name) : local;
  const zipPath = join(dirname(target), `.${basename(target)}.cairn-partial.zip`);
  try {
    await mkdir(dirname(target), { recursive: true });
    await pipeline(body, createWriteStream(zipPath));
    const { files, bytes } = await unpackZip(zipPath, target, name);
    print(copiedFiles(files, bytes, `from ${server.name}:${path} to ${target}`));
  } catch (e) {
    throw localFileError(e);
  } finally {
    await rm(zipPath, { force: true });
  }
}
