import { parse } from 'yaml';
import yauzl, { type Entry, type ZipFile } from 'yauzl';

/** Name and version a plugin jar declares, as text (`version: 1.0` stays "1.0"). */
export interface PluginDescriptor {
  name: string;
  version: string;
  /** Which descriptor file declared them. */
  source: string;
}

export class PluginDescriptorError extends Error {
  override name = 'PluginDescriptorError';
}

/** Paper reads its own descriptor first and falls back to the Bukkit one. */
const descriptorNames = ['paper-plugin.yml', 'plugin.yml'];
const maxDescriptorBytes = 1024 * 1024;
const maxEntries = 65_536;

function openZip(path: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false }, (err, zip) => {
      if (err) reject(new PluginDescriptorError(`not a readable jar (${err.message})`));
      else resolve(zip);
    });
  });
}

/** The root-level descriptor entries of a jar, without reading anything else. */
function findDescriptors(zip: ZipFile): Promise<Map<string, Entry>> {
  return new Promise((resolve, reject) => {
    const found = new Map<string, Entry>();
    let seen = 0;
    zip.on('entry', (entry: Entry) => {
      if (++seen > maxEntries) {
        reject(new PluginDescriptorError(`more than ${maxEntries} entries`));
        return;
      }
      if (descriptorNames.includes(entry.fileName)) found.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve(found));
    zip.once('error', (err: Error) => reject(new PluginDescriptorError(`broken jar (${err.message})`)));
    zip.readEntry();
  });
}

/** Reads one entry's bytes, refusing more than the limit whatever its header claims. */
function readEntryText(zip: ZipFile, entry: Entry): Promise<string> {
  if (entry.uncompressedSize > maxDescriptorBytes) return Promise.reject(new PluginDescriptorError(`${entry.fileName} is larger than ${maxDescriptorBytes} bytes`));
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err) return reject(new PluginDescriptorError(`cannot read ${entry.fileName} (${err.message})`));
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxDescriptorBytes) {
          stream.destroy(new PluginDescriptorError(`${entry.fileName} is larger than ${maxDescriptorBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      stream.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      stream.once('error', (e: Error) => reject(e instanceof PluginDescriptorError ? e : new PluginDescriptorError(`cannot read ${entry.fileName} (${e.message})`)));
    });
  });
}

function parseDescriptor(source: string, text: string): PluginDescriptor {
  let doc: unknown;
  try {
    // The failsafe schema keeps every scalar a string, so `version: 1.10` is "1.10", not 1.1.
    doc = parse(text, { schema: 'failsafe' });
  } catch (error) {
    throw new PluginDescriptorError(`${source} is not valid YAML (${(error as Error).message})`);
  }
  const fields = (typeof doc === 'object' && doc !== null ? doc : {}) as Record<string, unknown>;
  const name = typeof fields.name === 'string' ? fields.name.trim() : '';
  const version = typeof fields.version === 'string' ? fields.version.trim() : '';
  if (name === '') throw new PluginDescriptorError(`${source} declares no name`);
  if (version === '') throw new PluginDescriptorError(`${source} declares no version`);
  return { name, version, source };
}

export async function readPluginDescriptor(jarPath: string): Promise<PluginDescriptor> {
  const zip = await openZip(jarPath);
  try {
    const found = await findDescriptors(zip);
    const source = descriptorNames.find((n) => found.has(n));
    if (!source) throw new PluginDescriptorError(`no ${descriptorNames.join(' or ')} in the jar`);
    return parseDescriptor(source, await readEntryText(zip, found.get(source)!));
  } finally {
    zip.close();
  }
}
