import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { seeded } from './seeded-random.js';

export interface WorldFile {
  /** From the world's top, `/`-separated. */
  path: string;
  size: number;
  sha256: string;
}

/** Where a world's files go: region files of three dimensions, player data, configs, mods, as a modded world has them. */
const folders = ['world/region', 'world/DIM-1/region', 'world/DIM1/region', 'world/playerdata', 'world/data', 'config', 'config/mod-a', 'mods', 'logs', 'world/poi'];

/**
 * Writes a world of `files` files of random bytes totalling exactly `totalBytes` into `dir`, in
 * nested folders, sizes skewed as a real world's are (many small files, a few of several MiB),
 * the same for the same seed; no file over `maxFileBytes`.
 */
export async function writeWorld(dir: string, options: { files: number; totalBytes: number; seed?: number; maxFileBytes?: number }): Promise<WorldFile[]> {
  const random = seeded(options.seed ?? 46);
  const maxFileBytes = options.maxFileBytes ?? 48 * 1024 * 1024;
  if (options.totalBytes > options.files * maxFileBytes) throw new Error(`${options.files} files of at most ${maxFileBytes} bytes cannot hold ${options.totalBytes}`);
  const weights = Array.from({ length: options.files }, () => 0.02 + random() ** 4);
  const sum = weights.reduce((a, b) => a + b, 0);
  const sizes = weights.map((w) => Math.min(maxFileBytes, Math.floor((w / sum) * options.totalBytes)));
  // What rounding and the cap left over goes to the files with room, so the total is exact.
  let left = options.totalBytes - sizes.reduce((a, b) => a + b, 0);
  for (let i = 0; left > 0; i = (i + 1) % sizes.length) {
    const add = Math.min(left, maxFileBytes - sizes[i]);
    sizes[i] += add;
    left -= add;
  }
  const world: WorldFile[] = [];
  for (const [i, size] of sizes.entries()) {
    const path = `${folders[i % folders.length]}/f${String(i).padStart(4, '0')}.${i % 3 === 0 ? 'mca' : i % 3 === 1 ? 'dat' : 'bin'}`;
    const data = randomBytes(size);
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), data);
    world.push({ path, size, sha256: createHash('sha256').update(data).digest('hex') });
  }
  return world;
}

/** What OpenSSH's `sftp` printed and how it exited. */
export interface OpenSshRun {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs OpenSSH's `sftp` in batch mode with a key, trusting any host key; `cwd` is where local
 * paths of the batch are. Asynchronous, since the Controller answering it may run in this process.
 */
export function openSshBatch(options: { port: number; user: string; keyFile: string; batch: string[]; cwd: string; timeoutMs: number; extra?: string[] }): Promise<OpenSshRun> {
  const batchFile = join(options.cwd, `batch-${process.pid}-${Date.now()}`);
  return writeFile(batchFile, [...options.batch, ''].join('\n')).then(() => new Promise((resolve) => execFile('sftp', [
    '-b', batchFile, '-P', String(options.port), '-i', options.keyFile, '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null',
    '-o', 'IdentitiesOnly=yes', '-o', 'PasswordAuthentication=no', '-o', 'LogLevel=ERROR', ...(options.extra ?? []), `${options.user}@127.0.0.1`,
  ], { cwd: options.cwd, encoding: 'utf8', timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => resolve({
    status: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr,
  }))));
}
