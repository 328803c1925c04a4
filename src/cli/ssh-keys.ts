import type { SshKey, SshKeyList } from './api-types.js';
import type { CliClient } from './client.js';
import { notFound } from './errors.js';
import type { View } from './output.js';
import { ambiguity, isId } from './resolve.js';

/** `cairn get ssh-keys`: the caller's own keys (GET /me/ssh-keys, one short list, not paged). */
export const sshKeyView: View<SshKey> = {
  kind: 'ssh-key',
  plural: 'ssh-keys',
  name: (k) => k.name,
  columns: [
    { header: 'NAME', value: (k) => k.name },
    { header: 'FINGERPRINT', value: (k) => k.fingerprint },
    { header: 'CREATED', value: (k) => k.createdAt },
    { header: 'ID', value: (k) => k.id, wide: true },
  ],
};

export const listSshKeys = async (client: CliClient) => (await client.get<SshKeyList>('/me/ssh-keys')).items;

/** One of the caller's keys by id or name; names are not unique, so a shared one is refused with the ids. */
export async function resolveSshKey(client: CliClient, ref: string): Promise<SshKey> {
  const keys = await listSshKeys(client);
  const byId = isId(ref) ? keys.find((k) => k.id === ref) : undefined;
  if (byId) return byId;
  const named = keys.filter((k) => k.name === ref);
  if (named.length === 1) return named[0];
  if (named.length === 0) throw notFound('ssh-key', ref);
  throw ambiguity({ word: 'ssh-key', plural: 'ssh-keys' }, ref, named.map((k) => `${k.id}  ${k.fingerprint}`));
}
