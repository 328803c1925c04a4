import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Type from 'typebox';
import { ListedVersion, type ListedVersionRecord } from '../../schemas/software.js';
import { jsonAjv } from '../../schemas/validators.js';
import { defaultTemplatesDir } from '../../adapters/software/template-catalog.js';

const Snapshot = Type.Record(Type.String(), Type.Array(ListedVersion));
const validate = jsonAjv.compile(Snapshot);

/**
 * The listings shipped with the project (`templates/upstream/snapshot.json`), so a Controller that
 * has never reached an upstream still offers versions. Refreshing it is a release chore: the
 * sync's listings are kept in the store and win over it as soon as one succeeded.
 */
export async function readShippedSnapshot(path = join(defaultTemplatesDir(), 'upstream', 'snapshot.json')): Promise<Map<string, ListedVersionRecord[]>> {
  const value: unknown = JSON.parse(await readFile(path, 'utf8'));
  if (!validate(value)) throw new Error(`${path}: ${validate.errors?.[0]?.instancePath ?? ''} ${validate.errors?.[0]?.message ?? 'invalid'}`);
  return new Map(Object.entries(value as Record<string, ListedVersionRecord[]>));
}
