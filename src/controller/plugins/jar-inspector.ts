import { parse } from 'yaml';
import yauzl, { type Entry, type ZipFile } from 'yauzl';

/**
 * Bounds on reading an uploaded jar. Entry headers are checked before anything is inflated, and
 * only the descriptor is inflated (cut at its limit whatever its header claims; yauzl's
 * `validateEntrySizes` also catches a header that lies), so a zip bomb costs no memory.
 */
export const jarLimits = {
  maxEntries: 65_536,
  /** Sum of the entries' declared uncompressed sizes. */
  maxTotalUncompressedBytes: 512 * 1024 * 1024,
  /** Largest uncompressed/compressed ratio of one entry, for entries above `ratioCheckAboveBytes`. */
  maxRatio: 100,
  ratioCheckAboveBytes: 1024 * 1024,
  maxDescriptorBytes: 1024 * 1024,
} as const;

/** Why an uploaded jar is refused (`invalid_request`); the message is safe to show. */
export class JarRejectedError extends Error {
  override name = 'JarRejectedError';
}

export interface JarDescriptor {
  /** The declared plugin name, which identifies an uploaded plugin. */
  name: string;
  /** The declared version, as written (`1.0` stays "1.0"). */
  version: string;
  /** The descriptor file it came from. */
  descriptor: string;
}

/** Bukkit's rule for plugin names (Paper enforces it too), capped in length. */
const namePattern = /^[A-Za-z0-9 _.-]{1,64}$/;

/** Descriptors in the order a server of `platform` reads them. */
export function descriptorFiles(platform: string): string[] {
  const own = `${platform.toLowerCase()}-plugin.yml`;
  const yml = own === 'plugin.yml' ? ['plugin.yml'] : [own, 'plugin.yml'];
  return platform.toLowerCase() === 'velocity' ? ['velocity-plugin.json', ...yml] : yml;
}

function openZip(path: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false, decodeStrings: true }, (err, zip) => {
      if (err) reject(new JarRejectedError(`not a readable jar (${err.message})`));
      else resolve(zip);
    });
  });
}

/** Walks every entry header, enforcing the bounds; returns the root-level descriptor entries. */
function scanEntries(zip: ZipFile, wanted: readonly string[]): Promise<Map<string, Entry>> {
  return new Promise((resolve, reject) => {
    const found = new Map<string, Entry>();
    let count = 0;
    let total = 0;
    const fail = (message: string) => {
      zip.removeAllListeners('entry');
      reject(new JarRejectedError(message));
    };
    zip.on('entry', (entry: Entry) => {
      if (++count > jarLimits.maxEntries) return fail(`the jar has more than ${jarLimits.maxEntries} entries`);
      total += entry.uncompressedSize;
      if (total > jarLimits.maxTotalUncompressedBytes) return fail(`the jar would inflate to more than ${jarLimits.maxTotalUncompressedBytes} bytes`);
      if (entry.uncompressedSize > jarLimits.ratioCheckAboveBytes && entry.uncompressedSize > jarLimits.maxRatio * Math.max(1, entry.compressedSize)) {
        return fail(`${entry.fileName} inflates more than ${jarLimits.maxRatio} times (a zip bomb?)`);
      }
      if (wanted.includes(entry.fileName)) found.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve(found));
    zip.once('error', (err: Error) => fail(`broken jar (${err.message})`));
    zip.readEntry();
  });
}

function readEntryText(zip: ZipFile, entry: Entry): Promise<string> {
  const limit = jarLimits.maxDescriptorBytes;
  if (entry.uncompressedSize > limit) return Promise.reject(new JarRejectedError(`${entry.fileName} is larger than ${limit} bytes`));
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err) return reject(new JarRejectedError(`cannot read ${entry.fileName} (${err.message})`));
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) return stream.destroy(new JarRejectedError(`${entry.fileName} is larger than ${limit} bytes`));
        chunks.push(chunk);
      });
      stream.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      stream.once('error', (e: Error) => reject(e instanceof JarRejectedError ? e : new JarRejectedError(`cannot read ${entry.fileName} (${e.message})`)));
    });
  });
}

function declared(fields: Record<string, unknown>, file: string, nameKeys: string[]): JarDescriptor {
  const rawName = nameKeys.map((k) => fields[k]).find((v) => v !== undefined);
  if (typeof rawName !== 'string' || rawName.trim() === '') throw new JarRejectedError(`${file} declares no plugin name`);
  const name = rawName.trim();
  if (!namePattern.test(name)) throw new JarRejectedError(`${file}: the name "${name.slice(0, 80)}" must be 1 to 64 letters, digits, spaces, _ . or -`);
  const version = typeof fields.version === 'string' ? fields.version.trim() : '';
  if (version === '') throw new JarRejectedError(`${file} declares no version`);
  // eslint-disable-next-line no-control-regex
  if (version.length > 64 || /[\x00-\x1f\x7f]/.test(version)) throw new JarRejectedError(`${file}: the version must be at most 64 printable characters`);
  return { name, version, descriptor: file };
}

/** Parses one descriptor's text; YAML scalars stay strings (failsafe schema), aliases are capped. */
export function parseDescriptor(file: string, text: string): JarDescriptor {
  let doc: unknown;
  try {
    doc = file.endsWith('.json') ? JSON.parse(text) : parse(text, { schema: 'failsafe', maxAliasCount: 100, uniqueKeys: false });
  } catch (error) {
    throw new JarRejectedError(`${file} cannot be parsed (${(error as Error).message.split('\n')[0]})`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new JarRejectedError(`${file} is not a mapping of fields`);
  // Velocity plugins always have an id and may have a display name; Bukkit-style ones have a name.
  return declared(doc as Record<string, unknown>, file, file.endsWith('.json') ? ['name', 'id'] : ['name']);
}

/** The plugin a jar declares, read within `jarLimits`, for a server of `platform`. */
export async function inspectJar(path: string, platform: string): Promise<JarDescriptor> {
  const wanted = descriptorFiles(platform);
  const zip = await openZip(path);
  try {
    const found = await scanEntries(zip, wanted);
    const file = wanted.find((n) => found.has(n));
    if (!file) throw new JarRejectedError(`the jar has no ${wanted.join(' or ')}`);
    return parseDescriptor(file, await readEntryText(zip, found.get(file)!));
  } finally {
    zip.close();
  }
}
