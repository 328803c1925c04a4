import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { JWK } from 'jose';
import { NodeCredentials } from '../../link/node-credentials.js';
import { isDuplicateKey, type Collection } from '../../store/collection.js';
import type { SettingDoc } from '../../store/records.js';

const settingId = 'agent-link-key';
/** Where Cairn before 0.2 kept the key; moved into the store at the first start that finds it. */
const legacyKeyFile = 'agent-link-key.json';

/**
 * The key that signs Node credentials, kept in the store: every Controller on a shared MongoDB,
 * and a Controller restarted without its data dir, sign and check the same credentials, so no
 * Agent has to enroll again. Of two Controllers starting at once, the first insert wins and the
 * other uses the winner's key.
 */
export async function loadLinkSigningKey(settings: Collection<SettingDoc>, dataDir: string, now: string): Promise<NodeCredentials> {
  const stored = await settings.findById(settingId);
  if (stored) return NodeCredentials.fromKey(stored.value.jwk as JWK);
  const legacyPath = join(dataDir, legacyKeyFile);
  const legacy = await readFile(legacyPath, 'utf8').then((text) => JSON.parse(text) as JWK, (e: unknown) => {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  });
  const jwk = legacy ?? (await NodeCredentials.generateKey());
  try {
    await settings.insert({ _id: settingId, value: { jwk }, updatedAt: now });
  } catch (e) {
    if (!isDuplicateKey(e)) throw e;
    const winner = await settings.findById(settingId);
    if (!winner) throw e;
    return NodeCredentials.fromKey(winner.value.jwk as JWK);
  }
  if (legacy) await rm(legacyPath, { force: true });
  return NodeCredentials.fromKey(jwk);
}
