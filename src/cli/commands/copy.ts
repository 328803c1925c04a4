import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { basename, join, posix, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import type { CliClient } from '../client.js';
import { connect, print, withGlobals } from '../context.js';
import { ApiError, UsageError } from '../errors.js';
import { downloadFolder, isRemoteDirectory } from '../folder-download.js';
import { uploadFolder } from '../folder-upload.js';
import { resolveServer } from '../resolve.js';
import { resumableAboveBytes, resumableUpload } from '../resumable-upload.js';

export interface RemotePath {
  server: string;
  path: string;
}

/** `NAME:PATH` names a file of a server; anything else (`./a:b`, `/tmp/x`) is local. */
export function remoteOf(arg: string): RemotePath | undefined {
  const m = /^([^/:]+):(.*)$/.exec(arg);
  return m ? { server: m[1], path: m[2] } : undefined;
}

const isDirectory = async (path: string) => (await stat(path).catch(() => undefined))?.isDirectory() ?? false;

/** A remote target that is a directory (or ends in `/`, or is empty) takes the local file's name. */
async function remoteTarget(client: CliClient, serverId: string, path: string, name: string): Promise<string> {
  if (path === '' || path === '.' || path.endsWith('/')) return posix.join(path || '.', name);
  try {
    await client.get(`/servers/${serverId}/files?path=${encodeURIComponent(path)}`);
    return posix.join(path, name);
  } catch (e) {
    if (e instanceof ApiError && [400, 404, 409].includes(e.status)) return path;
    throw e;
  }
}

/** What a copy says when it is done, so a script's log and the operator see where the bytes went. */
const copied = (bytes: number, from: string | undefined, to: string) => `copied ${bytes} byte${bytes === 1 ? '' : 's'}${from ? ` from ${from}` : ''} to ${to}\n`;

async function upload(client: CliClient, local: string, remote: RemotePath, team?: string): Promise<void> {
  const info = await stat(local).catch(() => undefined);
  if (!info?.isFile() && !info?.isDirectory()) throw new UsageError(`${local}: not a file or directory`);
  const server = await resolveServer(client, remote.server, team);
  const path = await remoteTarget(client, server.id, remote.path, basename(resolve(local)));
  if (info.isDirectory()) return uploadFolder(client, server, local, path);
  if (info.size > resumableAboveBytes) {
    await resumableUpload(client, server.id, path, local, info, (offset) => process.stderr.write(`resuming at ${offset} of ${info.size} bytes\n`));
    print(copied(info.size, undefined, `${server.name}:${path}`));
    return;
  }
  await client.request('PUT', `/servers/${server.id}/files/content?path=${encodeURIComponent(path)}`, {
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(info.size) },
    body: Readable.toWeb(createReadStream(local)) as ReadableStream,
    duplex: 'half',
  });
  print(copied(info.size, undefined, `${server.name}:${path}`));
}

/**
 * Writes beside the target and renames, so a broken download never leaves half a file under the
 * target's name. To stdout (`-`) the file is the output, so nothing else is printed there.
 */
async function download(client: CliClient, remote: RemotePath, local: string, team?: string): Promise<void> {
  const server = await resolveServer(client, remote.server, team);
  if (await isRemoteDirectory(client, server.id, remote.path)) return downloadFolder(client, server, remote.path, local);
  const res = await client.request('GET', `/servers/${server.id}/files/content?path=${encodeURIComponent(remote.path)}`);
  const body = Readable.fromWeb(res.body! as never);
  if (local === '-') {
    await pipeline(body, process.stdout, { end: false });
    return;
  }
  const target = (await isDirectory(local)) ? join(local, posix.basename(remote.path)) : local;
  const partial = `${target}.cairn-partial`;
  try {
    await pipeline(body, createWriteStream(partial));
    await rename(partial, target);
  } catch (e) {
    await rm(partial, { force: true });
    throw e;
  }
  print(copied((await stat(target)).size, `${server.name}:${remote.path}`, target));
}

export function registerCopy(program: Command): void {
  withGlobals(program.command('cp'))
    .description('copy a file or folder to or from a server: LOCAL NAME:PATH, NAME:PATH LOCAL (a folder downloaded to - is a zip on stdout)')
    .argument('<source>')
    .argument('<destination>')
    .option('--team <team>', 'narrows a server name shared across teams')
    .action(async (source: string, destination: string, opts: { team?: string }, cmd: Command) => {
      const from = remoteOf(source);
      const to = remoteOf(destination);
      if ((from === undefined) === (to === undefined)) throw new UsageError('exactly one side is a server file, written NAME:PATH');
      const { client } = await connect(cmd);
      if (to) await upload(client, source, to, opts.team);
      else await download(client, from!, destination, opts.team);
    });
}
