import { createHash } from 'node:crypto';
import { Ajv } from 'ajv';
import Type, { type Static } from 'typebox';

/**
 * A set of files the Controller produced (an installer's output, a modpack's server files) and
 * hands to Agents as one artifact: a manifest listing each file's path and checksum, itself stored
 * by its sha256 like any artifact. The Agent fetches the manifest, then each file by its sha256,
 * and places them at their paths; so two sets sharing a library share its bytes in every cache.
 */

/** Most files a set may list (a NeoForge install has ~300, the largest modpacks ~1,000). */
export const maxSetFiles = 20_000;

export const ArtifactSetFile = Type.Object({
  /** `/`-separated, relative; see `setPathProblem`. */
  path: Type.String({ minLength: 1, maxLength: 400 }),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  size: Type.Integer({ minimum: 0 }),
  /** Whether the file is run itself (an installer's `run.sh`); the rest are plain data. */
  executable: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

export const ArtifactSetManifest = Type.Object({
  files: Type.Array(ArtifactSetFile, { maxItems: maxSetFiles }),
}, { additionalProperties: false });

/** How a template names a set: the manifest's sha256 and size. */
export const ArtifactSetRef = Type.Object({
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  size: Type.Integer({ minimum: 1 }),
}, { additionalProperties: false });

export type ArtifactSet = Static<typeof ArtifactSetManifest>;
export type ArtifactSetEntry = Static<typeof ArtifactSetFile>;
export type ArtifactSetRefSpec = Static<typeof ArtifactSetRef>;

/**
 * Why a set's path may not be written, or undefined: only plain relative paths, no `.` or `..`
 * segment, no empty segment, no backslash or control character, nothing in `.cairn` (the
 * installed software's mount point in a server's root).
 */
export function setPathProblem(path: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return `${JSON.stringify(path)}: control characters and backslashes are not allowed`;
  if (path.startsWith('/') || /^[a-zA-Z]:/.test(path)) return `${JSON.stringify(path)}: an absolute path`;
  const segments = path.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return `${JSON.stringify(path)}: empty, \`.\` or \`..\` segments are not allowed`;
  if (segments[0] === '.cairn') return `${JSON.stringify(path)}: .cairn holds the installed software`;
  return undefined;
}

/** The manifest in its one stored form (files by path), its sha256 and size. */
export function encodeArtifactSet(files: readonly ArtifactSetEntry[]): { text: string; sha256: string; size: number } {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const text = JSON.stringify({ files: sorted });
  return { text, sha256: createHash('sha256').update(text).digest('hex'), size: Buffer.byteLength(text) };
}

const checkManifest = new Ajv({ allErrors: false, strict: false }).compile<ArtifactSet>(ArtifactSetManifest);

/** The manifest's files, or why it is not one (a wrong shape, a path that could lead anywhere, a path twice). */
export function parseArtifactSet(text: string): ArtifactSet | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { problem: `not JSON (${(e as Error).message})` };
  }
  if (!checkManifest(value)) {
    const error = checkManifest.errors?.[0];
    return { problem: `not a file set (${error ? `${error.instancePath || '/'} ${error.message ?? ''}` : 'wrong shape'})` };
  }
  const seen = new Set<string>();
  for (const file of value.files) {
    const problem = setPathProblem(file.path);
    if (problem) return { problem };
    if (seen.has(file.path)) return { problem: `${JSON.stringify(file.path)} is listed twice` };
    seen.add(file.path);
  }
  return value;
}
