import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import yauzl, { type Entry } from 'yauzl';
import { CliError } from './errors.js';

/** A zip entry this machine will write: a directory or a regular file, at `parts` below the target. */
interface Planned {
  entry: Entry;
  name: string;
  parts: string[];
  directory: boolean;
}

/** Unix file type bits of a zip entry's mode: only zips made on Unix (high byte of "version made by" 3) carry one. */
const typeBits = 0o170000;
const regular = new Set([0, 0o100000]);
const unixType = (entry: Entry) => (entry.versionMadeBy >> 8 === 3 ? ((entry.externalFileAttributes >>> 16) & typeBits) : 0);

const refused = (name: string, why: string) => new CliError(`the zip's entry ${JSON.stringify(name)} is refused: ${why}; nothing was written`);

/**
 * What an entry becomes, or why it is refused. The names are decoded and checked here rather than
 * by yauzl, so a refusal names the entry and says why; `strip` is the folder the zip was made of
 * (its entries are `strip/...`), and an entry outside it is refused too.
 */
function plan(entry: Entry, strip: string): Planned | undefined {
  const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false);
  // eslint-disable-next-line no-control-regex -- control characters are what is looked for
  if (/[\u0000-\u001f\u007f]/.test(name)) throw refused(name, 'it holds a control character');
  const invalid = yauzl.validateFileName(name);
  if (invalid !== null) throw refused(name, invalid.startsWith('absolute') ? 'it is an absolute path' : invalid.startsWith('invalid relative') ? 'it leads outside the folder (`..`)' : 'it holds a backslash');
  const directory = name.endsWith('/');
  const type = unixType(entry);
  if (type === 0o120000) throw refused(name, 'it is a symbolic link');
  if (directory ? type !== 0 && type !== 0o040000 : !regular.has(type)) throw refused(name, 'it is not a regular file or directory');
  const all = name.split('/').filter((p) => p !== '' && p !== '.');
  if (strip !== '' && all[0] !== strip) throw refused(name, `it lies outside the folder ${JSON.stringify(strip)} asked for`);
  const parts = strip === '' ? all : all.slice(1);
  if (parts.length === 0) return undefined;
  return { entry, name, parts, directory };
}

/** Every entry's header, read before anything is written, so a hostile entry stops the whole download. */
async function listEntries(zipPath: string, strip: string): Promise<{ zip: yauzl.ZipFile; planned: Planned[] }> {
  const zip = await yauzl.openPromise(zipPath, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true })
    .catch((e: unknown) => {
      throw new CliError(`the Controller's answer is not a readable zip (${(e as Error).message})`);
    });
  const planned: Planned[] = [];
  try {
    await new Promise<void>((done, fail: (e: Error) => void) => {
      zip.on('entry', (entry: Entry) => {
        try {
          const step = plan(entry, strip);
          if (step) planned.push(step);
          zip.readEntry();
        } catch (e) {
          fail(e as Error);
        }
      });
      zip.once('end', done);
      zip.once('error', (e: Error) => fail(new CliError(`the Controller's answer is not a readable zip (${e.message})`)));
      zip.readEntry();
    });
  } catch (e) {
    zip.close();
    throw e;
  }
  return { zip, planned };
}

/**
 * Unpacks the zip at `zipPath` into the directory `into` (made when missing), the entries' leading
 * `strip` folder taken off. Links, special files, `..`, absolute names and control characters are
 * refused before anything is written. Each file is written beside its target and renamed into
 * place when whole, so a broken download never leaves half a file under a real name.
 */
export async function unpackZip(zipPath: string, into: string, strip: string): Promise<{ files: number; bytes: number }> {
  const { zip, planned } = await listEntries(zipPath, strip);
  const root = resolve(into);
  let files = 0;
  let bytes = 0;
  try {
    await mkdir(root, { recursive: true });
    for (const step of planned) {
      const target = join(root, ...step.parts);
      // The checks above already keep every name inside; this is the last word before a write.
      if (!target.startsWith(root + sep)) throw refused(step.name, 'it leads outside the folder');
      if (step.directory) {
        await mkdir(target, { recursive: true });
        continue;
      }
      await mkdir(join(root, ...step.parts.slice(0, -1)), { recursive: true });
      const partial = `${target}.cairn-partial`;
      try {
        await pipeline(await zip.openReadStreamPromise(step.entry), createWriteStream(partial));
        await rename(partial, target);
      } catch (e) {
        await rm(partial, { force: true });
        throw e;
      }
      files += 1;
      bytes += step.entry.uncompressedSize;
    }
  } finally {
    zip.close();
  }
  return { files, bytes };
}
