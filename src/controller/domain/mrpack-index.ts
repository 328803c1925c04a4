import { setPathProblem } from '../../shared/artifact-set.js';
import type { MrpackIndexFile } from '../schemas/modrinth-answers.js';

/** A pack unpacked may be at most this large (its files and overrides together). */
export const maxPackBytes = 4 * 2 ** 30;

/** The loaders a pack may name (its `dependencies` key) and the template each runs on. */
export const packLoaders = { 'fabric-loader': 'fabric', neoforge: 'neoforge', forge: 'forge' } as const;

/** The hosts the modpack format lets a pack's files come from (besides the configured Modrinth's own). */
export const packHosts = ['cdn.modrinth.com', 'github.com', 'raw.githubusercontent.com', 'gitlab.com'] as const;

export interface PackFileToFetch {
  path: string;
  url: string;
  sha512: string;
  sha1: string;
  size: number;
}

export interface PackIndexReading {
  game: string;
  loader: { template: string; build: string };
  /** The files a server needs (not those marked client-only), each from an allowed download. */
  files: PackFileToFetch[];
}

/**
 * Whether a URL is one a pack may download from: https on the format's hosts, or the configured
 * Modrinth API's own host (scheme and port included), so a local stand-in can serve packs.
 */
export function allowedPackUrl(url: string, modrinthBase: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const own = new URL(modrinthBase);
  if (parsed.protocol === own.protocol && parsed.host === own.host) return true;
  return parsed.protocol === 'https:' && !parsed.port && (packHosts as readonly string[]).includes(parsed.hostname);
}

/**
 * What a `.mrpack`'s index asks for, read as the format (version 1) says, or why the pack is
 * refused: another format or game, a loader other than Fabric, NeoForge or Forge, a path that
 * could lead outside the server's directory, a file offered only from hosts the format does not
 * allow. Files whose `env.server` is `unsupported` are client-only and left out.
 */
export function readPackIndex(index: MrpackIndexFile, modrinthBase: string): PackIndexReading | { problem: string } {
  if (index.formatVersion !== 1) return { problem: `the pack's formatVersion is ${index.formatVersion}; Cairn reads format 1` };
  if (index.game !== 'minecraft') return { problem: `the pack is for the game "${index.game}", not minecraft` };
  const game = index.dependencies.minecraft;
  if (!game) return { problem: 'the pack names no minecraft version in its dependencies' };
  const others = Object.keys(index.dependencies).filter((k) => k !== 'minecraft');
  const unknown = others.find((k) => !Object.hasOwn(packLoaders, k));
  if (unknown) return { problem: `the pack needs the loader ${unknown}, which Cairn does not run (it runs ${Object.keys(packLoaders).join(', ')})` };
  if (others.length !== 1) return { problem: `the pack must name one loader (${Object.keys(packLoaders).join(', ')}); it names ${others.length}` };
  const loaderKey = others[0] as keyof typeof packLoaders;
  const files: PackFileToFetch[] = [];
  for (const file of index.files) {
    if (file.env?.server === 'unsupported') continue;
    const problem = setPathProblem(file.path);
    if (problem) return { problem: `the pack's file ${problem}` };
    const url = file.downloads.find((u) => allowedPackUrl(u, modrinthBase));
    if (!url) return { problem: `the pack's file ${file.path} downloads only from hosts the modpack format does not allow (${file.downloads.map(hostOf).join(', ')}; allowed: ${[...packHosts, hostOf(modrinthBase)].join(', ')})` };
    files.push({ path: file.path, url, sha512: file.hashes.sha512, sha1: file.hashes.sha1, size: file.fileSize });
  }
  return { game, loader: { template: packLoaders[loaderKey], build: index.dependencies[loaderKey] }, files };
}

/** Why the pack is too large unpacked, or undefined: checked before anything is downloaded. */
export function packSizeProblem(files: readonly { size: number }[], overrideBytes: number): string | undefined {
  const total = files.reduce((sum, f) => sum + f.size, overrideBytes);
  return total > maxPackBytes ? `the pack unpacks to ${total} bytes, more than the ${maxPackBytes} (4 GiB) Cairn takes` : undefined;
}

/**
 * The server path of a zip entry under `overrides/` or `server-overrides/` (the latter applied
 * after, so it wins), with which layer; undefined for other entries and directories; a problem for
 * a path that could lead outside the server's directory.
 */
export function overridePath(entryName: string): { path: string; layer: 0 | 1 } | { problem: string } | undefined {
  const layer = entryName.startsWith('overrides/') ? 0 : entryName.startsWith('server-overrides/') ? 1 : undefined;
  if (layer === undefined || entryName.endsWith('/')) return undefined;
  const path = entryName.slice(layer === 0 ? 'overrides/'.length : 'server-overrides/'.length);
  const problem = setPathProblem(path);
  return problem ? { problem: `the pack's entry ${problem}` } : { path, layer };
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url.slice(0, 60);
  }
};
