import { lstat, open } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { KeyedMutex } from '../../shared/keyed-mutex.js';
import { isManagedProperty, PropertiesFile, PropertiesFormatError } from '../../shared/properties-file.js';
import { AgentError } from '../errors.js';
import type { GameIdentity } from '../isolation/game-identity.js';
import { errnoOf, fileReadFlags, replaceFileIn, withPlace, type Place } from './beneath.js';

export const propertiesFileName = 'server.properties';
/** A server.properties larger than this is not a settings file; it is refused rather than parsed. */
export const maxPropertiesBytes = 1024 * 1024;

/**
 * server.properties of each server, read and changed on disk. Changes to one server's file are
 * serialised, and each is written to a temporary file and renamed into place, so two changes
 * never lose each other's keys and the game never reads half a file.
 */
export class ServerProperties {
  private readonly locks = new KeyedMutex();

  async get(root: string): Promise<Record<string, string>> {
    return withPlace(root, propertiesFileName, 'write', async (place) => (await this.read(place)).file.values());
  }

  /** Changes keys; the file written is owned by `owner` when games run as their own user. */
  patch(serverId: string, root: string, set: Record<string, string>, remove: string[], owner?: GameIdentity | null): Promise<Record<string, string>> {
    const managed = [...Object.keys(set), ...remove].filter(isManagedProperty);
    if (managed.length > 0) return Promise.reject(new AgentError('MANAGED_PROPERTY', `Cairn manages ${managed.join(', ')}.`));
    return this.locks.run(serverId, () => withPlace(root, propertiesFileName, 'write', async (place) => {
      const { file, encoding } = await this.read(place);
      for (const key of remove) file.remove(key);
      for (const [key, value] of Object.entries(set)) file.set(key, value);
      await replaceFileIn(place.dir, place.name, 0o644, owner, (handle) => handle.writeFile(file.toString(), { encoding }));
      return file.values();
    }));
  }

  /**
   * The parsed file (empty when it does not exist yet) and the encoding to write it back in: UTF-8
   * when the bytes are valid UTF-8, else ISO-8859-1 (java.util.Properties' own); either way every
   * untouched byte is written back as it was. A symlinked server.properties is never followed.
   */
  private async read(place: Place): Promise<{ file: PropertiesFile; encoding: BufferEncoding }> {
    const info = await lstat(place.path).catch((e: unknown) => {
      if (errnoOf(e) === 'ENOENT') return undefined;
      throw e;
    });
    if (!info) return { file: PropertiesFile.parse(''), encoding: 'utf8' };
    if (!info.isFile()) throw new AgentError('INVALID_PROPERTIES', `${propertiesFileName} is not a regular file.`);
    if (info.size > maxPropertiesBytes) throw new AgentError('TOO_LARGE', `${propertiesFileName} is larger than ${maxPropertiesBytes} bytes.`);
    const handle = await open(place.path, fileReadFlags);
    try {
      // Looked at again through the fd: a FIFO swapped in after the lstat must not be read from.
      const opened = await handle.stat();
      if (!opened.isFile()) throw new AgentError('INVALID_PROPERTIES', `${propertiesFileName} is not a regular file.`);
      if (opened.size > maxPropertiesBytes) throw new AgentError('TOO_LARGE', `${propertiesFileName} is larger than ${maxPropertiesBytes} bytes.`);
      const bytes = await handle.readFile();
      const encoding = isUtf8(bytes) ? 'utf8' : 'latin1';
      return { file: parseProperties(bytes.toString(encoding)), encoding };
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
