import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import { newForwardingSecret } from '../../security/secrets.js';
import { isDuplicateKey } from '../../store/collection.js';
import type { Repositories } from '../../store/repositories.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import { openSealed } from '../../security/sealed-secret.js';

const settingId = 'network-forwarding-secret';
/** The SecretBox purpose: a sealed value moved to another setting does not open. */
const purpose = 'network:forwarding-secret';
const mend = 'Start the Controller with the key file it was sealed with, or rotate the secret (POST /network/forwarding-secret).';

/**
 * The network's modern-forwarding secret, made the first time the network needs it and kept in
 * the settings collection apart from the network record, so no view of the network can carry
 * it. It is sealed with the secrets key file (the proxy and the members must be given the secret
 * itself, so it cannot be a hash). It reaches the Agents only inside desired state and is never
 * logged or audited. Read from the store at each use, so a rotation by another Controller on the
 * same MongoDB is seen at once; the last opening is kept while the sealed value is unchanged.
 */
export class ForwardingSecret {
  private readonly lock = new KeyedMutex();
  private opened?: { sealed: string; secret: string };

  constructor(private readonly deps: Pick<ServiceDeps, 'clock' | 'secrets'> & { repos: Pick<Repositories, 'settings'> }) {}

  private open(sealed: string): string {
    if (this.opened?.sealed !== sealed) this.opened = { sealed, secret: openSealed(this.deps.secrets, sealed, purpose, mend) };
    return this.opened.secret;
  }

  /** A secret an older Controller stored in clear is sealed where it lies, unchanged: the servers holding it stay valid. */
  async sealStored(): Promise<void> {
    await this.lock.run(settingId, async () => {
      const clear = (await this.deps.repos.settings.findById(settingId))?.value.secret;
      if (typeof clear !== 'string') return;
      await this.deps.repos.settings.replace({ _id: settingId }, { _id: settingId, value: { sealed: this.deps.secrets.seal(clear, purpose) }, updatedAt: nowIso(this.deps) });
    });
  }

  get(): Promise<string> {
    return this.lock.run(settingId, async () => {
      const sealed = (await this.deps.repos.settings.findById(settingId))?.value.sealed;
      if (typeof sealed === 'string') return this.open(sealed);
      return this.store(newForwardingSecret(), 'insert').catch(async (e: unknown) => {
        // Another Controller on the same store made it first: use that one.
        const made = (await this.deps.repos.settings.findById(settingId))?.value.sealed;
        if (!isDuplicateKey(e) || typeof made !== 'string') throw e;
        return this.open(made);
      });
    });
  }

  /** A new secret in place of the old one, which no server is given again. */
  rotate(): Promise<void> {
    return this.lock.run(settingId, async () => {
      await this.store(newForwardingSecret(), (await this.deps.repos.settings.findById(settingId)) ? 'replace' : 'insert');
    });
  }

  private async store(secret: string, how: 'insert' | 'replace'): Promise<string> {
    const doc = { _id: settingId, value: { sealed: this.deps.secrets.seal(secret, purpose) }, updatedAt: nowIso(this.deps) };
    if (how === 'insert') await this.deps.repos.settings.insert(doc);
    else await this.deps.repos.settings.replace({ _id: settingId }, doc);
    this.opened = { sealed: doc.value.sealed, secret };
    return secret;
  }
}
