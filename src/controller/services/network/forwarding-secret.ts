import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import { newForwardingSecret } from '../../security/secrets.js';
import type { Repositories } from '../../store/repositories.js';
import { nowIso, type ServiceDeps } from '../deps.js';

const settingId = 'network-forwarding-secret';

/**
 * The network's modern-forwarding secret, made the first time the network needs it and kept in
 * the settings collection apart from the network record, so no view of the network can carry
 * it. It is stored as it is, not as a hash: the proxy and the members must be given the secret
 * itself. It reaches the Agents only inside desired state and is never logged or audited.
 */
export class ForwardingSecret {
  private readonly lock = new KeyedMutex();
  private cached?: string;

  constructor(private readonly deps: Pick<ServiceDeps, 'clock'> & { repos: Pick<Repositories, 'settings'> }) {}

  get(): Promise<string> {
    if (this.cached) return Promise.resolve(this.cached);
    return this.lock.run(settingId, async () => {
      if (this.cached) return this.cached;
      const stored = await this.deps.repos.settings.findById(settingId);
      const existing = stored?.value.secret;
      if (typeof existing === 'string') return (this.cached = existing);
      const secret = newForwardingSecret();
      await this.deps.repos.settings.insert({ _id: settingId, value: { secret }, updatedAt: nowIso(this.deps) });
      return (this.cached = secret);
    });
  }
}
