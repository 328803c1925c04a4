import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { JWK } from 'jose';
import { NodeCredentials } from '../../link/node-credentials.js';
import { SecretBoxError, type SecretBox } from '../../security/secret-box.js';
import { isDuplicateKey, type Collection } from '../../store/collection.js';
import type { SettingDoc } from '../../store/records.js';

const settingId = 'agent-link-key';
/** The SecretBox purpose of the key: a sealed value moved to another setting does not open. */
const purpose = 'agent-link-key';
/** Where Cairn before 0.2 kept the key; moved into the store at the first start that finds it. */
const legacyKeyFile = 'agent-link-key.json';

function opened(secrets: SecretBox, sealed: string): JWK {
  try {
    return JSON.parse(secrets.open(sealed, purpose)) as JWK;
  } catch (e) {
    if (!(e instanceof SecretBoxError)) throw e;
    throw new Error('The Agent link signing key in the store does not open with this Controller\'s secrets key file (--secrets-key-file): start it with the key file the other Controllers use.', { cause: e });
  }
}

/**
 * The stored key, opened. A key an older Controller stored in clear is sealed where it lies,
 * unchanged, so the credentials it signed stay valid; two Controllers doing so at once each
 * store a sealing of the same key.
 */
async function storedKey(settings: Collection<SettingDoc>, secrets: SecretBox, stored: SettingDoc): Promise<JWK> {
  if (typeof stored.value.sealed === 'string') return opened(secrets, stored.value.sealed);
  const jwk = stored.value.jwk as JWK;
  await settings.update({ _id: settingId }, { value: { sealed: secrets.seal(JSON.stringify(jwk), purpose) } });
  return jwk;
}

/**
 * The key that signs Node credentials, kept in the store sealed with the secrets key file (a
 * stolen store alone cannot mint credentials): every Controller on a shared MongoDB, and a
 * Controller restarted without its data dir, sign and check the same credentials, so no Agent
 * has to enroll again. Of two Controllers starting at once, the first insert wins and the other
 * uses the winner's key.
 */
export async function loadLinkSigningKey(settings: Collection<SettingDoc>, secrets: SecretBox, dataDir: string, now: string): Promise<NodeCredentials> {
  const stored = await settings.findById(settingId);
  if (stored) return NodeCredentials.fromKey(await storedKey(settings, secrets, stored));
  const legacyPath = join(dataDir, legacyKeyFile);
  const legacy = await readFile(legacyPath, 'utf8').then((text) => JSON.parse(text) as JWK, (e: unknown) => {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  });
  const jwk = legacy ?? (await NodeCredentials.generateKey());
  try {
    await settings.insert({ _id: settingId, value: { sealed: secrets.seal(JSON.stringify(jwk), purpose) }, updatedAt: now });
  } catch (e) {
    if (!isDuplicateKey(e)) throw e;
    const winner = await settings.findById(settingId);
    if (!winner) throw e;
    return NodeCredentials.fromKey(await storedKey(settings, secrets, winner));
  }
  if (legacy) await rm(legacyPath, { force: true });
  return NodeCredentials.fromKey(jwk);
}
