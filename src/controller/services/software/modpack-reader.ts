import { rm, writeFile } from 'node:fs/promises';
import type { Entry } from 'yauzl';
import { encodeArtifactSet, type ArtifactSetEntry } from '../../../shared/artifact-set.js';
import type { ArtifactStore } from '../../adapters/software/artifact-store.js';
import { checkedAnswer } from '../../adapters/software/checked-answer.js';
import { downloadChecked, DownloadRefused } from '../../adapters/software/checked-download.js';
import { Mrpack, MrpackRefused } from '../../adapters/software/mrpack-zip.js';
import { UpstreamError } from '../../adapters/software/upstream-http.js';
import { allowedPackUrl, overridePath, packSizeProblem, readPackIndex, type PackFileToFetch } from '../../domain/mrpack-index.js';
import { MrpackIndex, type ModrinthVersion } from '../../schemas/modrinth-answers.js';

/** A pack version as read: what its record keeps (`modpacks.ts`). */
export interface PackReading {
  title?: string;
  versionName: string;
  game: string;
  loader: { template: string; build: string };
  /** The set of files placed into the server's root. */
  pack: { sha256: string; size: number };
  /** The set's manifest and every file in it, held in the artifact store. */
  produced: { sha256: string; size: number }[];
}

/** Why a pack cannot be installed, in words for `invalid_request`. */
export class PackRefused extends Error {
  override name = 'PackRefused';
}

export interface ReaderOptions {
  /** Modrinth's API base: its host may serve packs and their files too. */
  base: string;
  /** Downloads at once. */
  concurrency: number;
  /** Each download's deadline. */
  fileTimeoutMs: number;
}

/**
 * Reads one pack version: its primary `.mrpack` downloaded and checked against the listing, the
 * index read (`readPackIndex`), the pack's size checked before any file is fetched, each server
 * file fetched from an allowed host and checked (sha512, sha1, size), then `overrides/` and
 * `server-overrides/` laid over them; every file and the set's manifest land in the artifact
 * store by sha256. Nothing of it reaches a server until the whole pack was read.
 */
export async function readPackVersion(store: ArtifactStore, version: ModrinthVersion, options: ReaderOptions): Promise<PackReading> {
  const primary = version.files.find((f) => f.primary && f.filename.endsWith('.mrpack')) ?? version.files.find((f) => f.filename.endsWith('.mrpack'));
  if (!primary) throw new PackRefused(`the version ${version.id} has no .mrpack file`);
  if (!primary.hashes.sha512 && !primary.hashes.sha1) throw new PackRefused(`${primary.url} has no checksum to verify it with`);
  if (!allowedPackUrl(primary.url, options.base)) throw new PackRefused(`${primary.url} is not on a host the modpack format allows`);
  const packFile = await store.tempPath();
  try {
    await fetchChecked(primary.url, packFile, { size: primary.size, sha512: primary.hashes.sha512, sha1: primary.hashes.sha1 }, options);
    const zip = await Mrpack.open(packFile).catch(refusedAs);
    try {
      return await readOpened(store, zip, version, options);
    } finally {
      zip.close();
    }
  } finally {
    await rm(packFile, { force: true });
  }
}

async function readOpened(store: ArtifactStore, zip: Mrpack, version: ModrinthVersion, options: ReaderOptions): Promise<PackReading> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await zip.indexText().catch(refusedAs));
  } catch (e) {
    throw e instanceof PackRefused ? e : new PackRefused(`modrinth.index.json is not JSON (${(e as Error).message})`);
  }
  const index = (() => {
    try {
      return checkedAnswer(MrpackIndex, parsed, 'modrinth.index.json');
    } catch (e) {
      throw new PackRefused((e as Error).message);
    }
  })();
  const reading = readPackIndex(index, options.base);
  if ('problem' in reading) throw new PackRefused(reading.problem);
  const overrides = new Map<string, { entry: Entry; layer: number }>();
  let overrideBytes = 0;
  for (const [name, entry] of zip.entries) {
    const at = overridePath(name);
    if (!at) continue;
    if ('problem' in at) throw new PackRefused(at.problem);
    overrideBytes += entry.uncompressedSize;
    // server-overrides/ is applied after overrides/: its file wins.
    if ((overrides.get(at.path)?.layer ?? -1) <= at.layer) overrides.set(at.path, { entry, layer: at.layer });
  }
  const tooBig = packSizeProblem(reading.files, overrideBytes);
  if (tooBig) throw new PackRefused(tooBig);
  const files = new Map<string, ArtifactSetEntry>();
  await inTurns(reading.files.filter((f) => !overrides.has(f.path)), options.concurrency, async (file) => {
    files.set(file.path, { path: file.path, ...(await fetchIntoStore(store, file, options)) });
  });
  for (const [path, { entry }] of overrides) files.set(path, { path, ...(await extractIntoStore(store, zip, entry)) });
  const manifest = encodeArtifactSet([...files.values()]);
  const temp = await store.tempPath();
  await writeFile(temp, manifest.text, { mode: 0o600 });
  await store.adopt(temp, manifest.sha256);
  const pack = { sha256: manifest.sha256, size: manifest.size };
  return {
    ...(index.name ? { title: index.name } : {}),
    versionName: version.version_number,
    game: reading.game,
    loader: reading.loader,
    pack,
    produced: [pack, ...[...files.values()].map(({ sha256, size }) => ({ sha256, size }))],
  };
}

async function fetchIntoStore(store: ArtifactStore, file: PackFileToFetch, options: ReaderOptions): Promise<{ sha256: string; size: number }> {
  const temp = await store.tempPath();
  try {
    const { sha256 } = await fetchChecked(file.url, temp, { size: file.size, sha512: file.sha512, sha1: file.sha1 }, options);
    if (!(await store.has(sha256))) await store.adopt(temp, sha256);
    return { sha256, size: file.size };
  } finally {
    await rm(temp, { force: true });
  }
}

async function extractIntoStore(store: ArtifactStore, zip: Mrpack, entry: Entry): Promise<{ sha256: string; size: number }> {
  const temp = await store.tempPath();
  try {
    const got = await zip.extract(entry, temp).catch(refusedAs);
    if (!(await store.has(got.sha256))) await store.adopt(temp, got.sha256);
    return got;
  } finally {
    await rm(temp, { force: true });
  }
}

async function fetchChecked(url: string, file: string, expected: Parameters<typeof downloadChecked>[2], options: ReaderOptions) {
  try {
    return await downloadChecked(url, file, expected, options.fileTimeoutMs);
  } catch (e) {
    throw e instanceof DownloadRefused ? new PackRefused(e.message) : e;
  }
}

const refusedAs = (e: unknown): never => {
  throw e instanceof MrpackRefused || e instanceof UpstreamError ? new PackRefused(e.message) : e;
};

/** Runs `work` on every item, at most `width` at a time; the first failure ends it. */
async function inTurns<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
}
