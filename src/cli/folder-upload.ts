import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import pMap from 'p-map';
import type { ServerItem } from './api-types.js';
import type { CliClient } from './client.js';
import { print } from './context.js';
import { ApiError, localFileError } from './errors.js';
import { resumableAboveBytes, resumableUpload } from './resumable-upload.js';

/** Files sent at once: the Controller lets one user stream two uploads at a time (docs/api.md), a third is refused. */
const parallelFiles = 2;
/** An upload of the same user elsewhere (the web UI, another copy) takes a slot for a while: waited for this long at most. */
const busyRetries = 10;
const busyPauseMs = 1000;

interface LocalFile {
  local: string;
  relative: string;
  size: number;
}

/** A local folder as the copy sends it: its directories parents first, its regular files, and what it leaves out. */
interface LocalTree {
  directories: string[];
  files: LocalFile[];
  skipped: string[];
}

/** What a folder copy says when it is done (or how far it got). */
export const copiedFiles = (files: number, bytes: number, where: string) =>
  `copied ${files} file${files === 1 ? '' : 's'}, ${bytes} byte${bytes === 1 ? '' : 's'} ${where}\n`;

/**
 * Symbolic links and special files are left out and named, not followed: a link could lead the
 * copy anywhere on this machine, and the files API would refuse a link on the server side anyway.
 */
async function walk(root: string): Promise<LocalTree> {
  const tree: LocalTree = { directories: [], files: [], skipped: [] };
  const visit = async (dir: string, relative: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      const local = join(dir, entry.name);
      if (entry.isDirectory()) {
        tree.directories.push(path);
        await visit(local, path);
      } else if (entry.isFile()) {
        tree.files.push({ local, relative: path, size: (await stat(local)).size });
      } else {
        tree.skipped.push(path);
      }
    }
  };
  await visit(root, '');
  return tree;
}

/** An existing directory is fine: a folder copied again fills in what it holds, as `cp -r` does. */
async function mkdirRemote(client: CliClient, serverId: string, path: string): Promise<void> {
  try {
    // 201 with no JSON body: the request alone, its body read and dropped.
    await (await client.request('POST', `/servers/${serverId}/files/directories?path=${encodeURIComponent(path)}`)).arrayBuffer();
  } catch (e) {
    if (!(e instanceof ApiError && e.code === 'conflict')) throw e;
  }
}

async function putFile(client: CliClient, serverId: string, file: LocalFile, path: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await putOnce(client, serverId, file, path);
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 'too_many_attempts') || attempt > busyRetries) throw e;
      await delay(busyPauseMs);
    }
  }
}

async function putOnce(client: CliClient, serverId: string, file: LocalFile, path: string): Promise<void> {
  // Past the single request's limit a file goes in pieces, and a second run of the copy resumes it.
  if (file.size > resumableAboveBytes) {
    return resumableUpload(client, serverId, path, file.local, await stat(file.local), (offset) => process.stderr.write(`${file.relative}: resuming at ${offset} of ${file.size} bytes\n`));
  }
  await client.request('PUT', `/servers/${serverId}/files/content?path=${encodeURIComponent(path)}`, {
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(file.size) },
    body: Readable.toWeb(createReadStream(file.local)) as ReadableStream,
    duplex: 'half',
  });
}

/**
 * `cairn cp LOCALDIR NAME:PATH`: the server's `target` directory is made (and each one below it,
 * parents first, since the API makes one level at a time), then the files are sent through
 * PUT files/content. The first refusal stops the copy, saying how far it got and naming the file.
 */
export async function uploadFolder(client: CliClient, server: ServerItem, localDir: string, target: string): Promise<void> {
  const tree = await walk(localDir).catch((e: unknown) => {
    throw localFileError(e);
  });
  const where = `to ${server.name}:${target}`;
  if (tree.skipped.length > 0) process.stderr.write(`left out (links and special files are not copied): ${tree.skipped.join(', ')}\n`);
  await mkdirRemote(client, server.id, target);
  for (const dir of tree.directories) await mkdirRemote(client, server.id, `${target}/${dir}`);
  let files = 0;
  let bytes = 0;
  await pMap(tree.files, async (file) => {
    const path = `${target}/${file.relative}`;
    try {
      await putFile(client, server.id, file, path);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      throw new ApiError(e.status, e.code, `${server.name}:${path}: ${e.detail}`);
    }
    files += 1;
    bytes += file.size;
  }, { concurrency: parallelFiles }).catch((e: unknown) => {
    process.stderr.write(`stopped after copying ${files} of ${tree.files.length} files (${bytes} bytes) ${where}\n`);
    throw e;
  });
  print(copiedFiles(files, bytes, where));
}
