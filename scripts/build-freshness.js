import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, sep } from 'node:path';

/**
 * What `npm run build` reads: the sources (web UI included), the compiler settings and the
 * dependencies. templates/ and proto/ are read when the Controller starts, not built.
 */
export const buildInputs = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];
/** What a build leaves that `npm start` needs. */
export const buildOutputs = ['dist/src/controller/main.js', 'dist/src/agent/main.js', 'dist/web/index.html'];
/** Written after a successful build: the fingerprint of the inputs it was made from. */
export const stampFile = 'dist/.build-stamp.json';

async function filesUnder(root, path) {
  const full = join(root, path);
  const entries = await readdir(full, { withFileTypes: true }).catch((e) => {
    if (e.code === 'ENOTDIR') return null;
    if (e.code === 'ENOENT') return [];
    throw e;
  });
  if (entries === null) return [path];
  const nested = await Promise.all(entries.map((e) => (e.isDirectory() || e.isFile() ? filesUnder(root, join(path, e.name)) : [])));
  return nested.flat();
}

/**
 * A sha256 over every input file's path and content, in a fixed order: it changes when anything
 * the build reads changes, and not when a checkout or `touch` only moves mtimes.
 */
export async function inputFingerprint(root, inputs = buildInputs) {
  const files = (await Promise.all(inputs.map((p) => filesUnder(root, p)))).flat().sort();
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(file.split(sep).join('/')).update('\0');
    hash.update(await readFile(join(root, file))).update('\0');
  }
  return hash.digest('hex');
}

export async function readStamp(root) {
  try {
    const stamp = JSON.parse(await readFile(join(root, stampFile), 'utf8'));
    return typeof stamp?.fingerprint === 'string' ? stamp : undefined;
  } catch {
    return undefined;
  }
}

export async function writeStamp(root, fingerprint) {
  await writeFile(join(root, stampFile), JSON.stringify({ fingerprint, builtAt: new Date().toISOString() }) + '\n');
}

export async function removeStamp(root) {
  await rm(join(root, stampFile), { force: true });
}

export const outputsPresent = (root) => buildOutputs.every((p) => existsSync(join(root, p)));

/** Whether to build: `missing` (no build or part of it gone), `stale` (inputs changed or never stamped) or `fresh`. */
export function freshness({ outputsPresent, stamp, fingerprint }) {
  if (!outputsPresent) return 'missing';
  return stamp?.fingerprint === fingerprint ? 'fresh' : 'stale';
}
