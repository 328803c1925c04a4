import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isUtf8 } from 'node:buffer';
import { KeyedMutex } from '../../shared/keyed-mutex.js';
import { isManagedProperty, PropertiesFile, PropertiesFormatError } from '../../shared/properties-file.js';
import { AgentError } from '../errors.js';
import { resolveInRoot } from './sandbox.js';

export const propertiesFileName = 'server.properties';
/** A server.properties larger than this is not a settings file; it is refused rather than parsed. */
export const maxPropertiesBytes = 1024 * 1024;

const errnoOf = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code;

/**
 * server.properties of each server, read and changed on disk. Changes to one server's file are
 * serialised, and each is written to a temporary file and renamed into place, so two changes
 * never lose each other's keys and the game never reads half a file.
 */
export class ServerProperties {
  private readonly locks = new KeyedMutex();

  async get(root: string): Promise<Record<string, string>> {
    return (await this.read(root)).file.values();
  }

  patch(serverId: string, root: string, set: Record<string, string>, remove: string[]): Promise<Record<string, string>> {
    const managed = [...Object.keys(set), ...remove].filter(isManagedProperty);
    if (managed.length > 0) return Promise.reject(new AgentError('MANAGED_PROPERTY', `Cairn manages ${managed.join(', ')}.`));
    return this.locks.run(serverId, async () => {
      const { file, path, encoding } = await this.read(root);
      for (const key of remove) file.remove(key);
      for (const [key, value] of Object.entries(set)) file.set(key, value);
      const temp = join(root, `.cairn-upload-${randomUUID()}`);
      try {
        await writeFile(temp, file.toString(), { mode: 0o644, flag: 'wx', encoding });
        await rename(temp, path);
      } catch (e) {
        await rm(temp, { force: true });
        throw e;
      }
      return file.values();
    });
  }

  /**
   * The parsed file (empty when it does not exist yet) and the encoding to write it back in: UTF-8
   * when the bytes are valid UTF-8, else ISO-8859-1 (java.util.Properties' own); either way every
   * untouched byte is written back as it was. A symlinked server.properties is never followed.
   */
  private async read(root: string): Promise<{ file: PropertiesFile; path: string; encoding: BufferEncoding }> {
    const resolved = await resolveInRoot(root, propertiesFileName, 'write');
    const path = resolved.absolute;
    const info = await lstat(path).catch((e: unknown) => {
      if (errnoOf(e) === 'ENOENT') return undefined;
      throw e;
    });
    if (!info) return { file: PropertiesFile.parse(''), path, encoding: 'utf8' };
    if (!info.isFile()) throw new AgentError('INVALID_PROPERTIES', `${propertiesFileName} is not a regular file.`);
    if (info.size > maxPropertiesBytes) throw new AgentError('TOO_LARGE', `${propertiesFileName} is larger than ${maxPropertiesBytes} bytes.`);
    const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const bytes = await handle.readFile();
      const encoding = isUtf8(bytes) ? 'utf8' : 'latin1';
      return { file: parseProperties(bytes.toString(encoding)), path, encoding };
    } finally {
      await handle.close();
    }
  }
}

function parseProperties(text: string): PropertiesFile {
  try {
    return PropertiesFile.parse(text);
  } catch (e) {
    if (e instanceof PropertiesFormatError) throw new AgentError('INVALID_PROPERTIES', `${propertiesFileName} cannot be read: ${e.message}`);
    throw e;
  }
}
