import type { Clock, IdGenerator } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import type { SecretBox } from '../security/secret-box.js';
import type { Repositories } from '../store/repositories.js';

/** What every service is built from; tests swap the clock and ids. */
export interface ServiceDeps {
  repos: Repositories;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  dataDir: string;
  /** Opens and seals the secrets the store keeps encrypted. */
  secrets: SecretBox;
}

export const nowIso = (deps: { clock: Clock }) => deps.clock.now().toISOString();
