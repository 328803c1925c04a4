import { randomBytes } from 'node:crypto';
import { openSealed } from '../../security/sealed-secret.js';
import type { SecretBox } from '../../security/secret-box.js';
import { isDuplicateKey, type Collection } from '../../store/collection.js';
import type { SettingDoc } from '../../store/records.js';

const settingId = 'controller-internal-key';
/** The SecretBox purpose: a sealed value moved to another setting does not open. */
const purpose = 'controller-internal-key';

const opened = (secrets: SecretBox, doc: SettingDoc): Uint8Array =>
  Buffer.from(openSealed(secrets, String(doc.value.sealed), purpose, 'Start every Controller on this store with the same key file.'), 'base64');

/**
 * The key Controllers on one store sign their requests to each other with (forwarded Agent
 * requests and console streams), kept in the store sealed with the secrets key file: a stolen store
 * alone cannot forge a Controller's request. Of two Controllers generating it at once, the first
 * insert wins and the other uses the winner's key.
 */
export async function loadInternalKey(settings: Collection<SettingDoc>, secrets: SecretBox, now: string): Promise<Uint8Array> {
  const stored = await settings.findById(settingId);
  if (stored) return opened(secrets, stored);
  const key = randomBytes(32);
  try {
    await settings.insert({ _id: settingId, value: { sealed: secrets.seal(key.toString('base64'), purpose) }, updatedAt: now });
    return key;
  } catch (e) {
    if (!isDuplicateKey(e)) throw e;
    const winner = await settings.findById(settingId);
    if (!winner) throw e;
    return opened(secrets, winner);
  }
}
