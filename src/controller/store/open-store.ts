import type { Clock } from '../../shared/clock.js';
import { EmbeddedAdapter } from './embedded/embedded-adapter.js';
import type { StoreRepair } from './embedded/torn-tail.js';
import { openRepositories, type Repositories } from './repositories.js';

/** MongoDB when a URI is given, otherwise the embedded store under the data dir. */
export async function openStore(options: { dataDir: string; mongodbUri?: string; clock: Clock; onRepair?: (repair: StoreRepair) => void }): Promise<Repositories> {
  // The MongoDB driver is loaded only when it is used: importing it cost a start on the embedded store half a second.
  const adapter = options.mongodbUri
    ? await (await import('./mongo/mongo-adapter.js')).MongoAdapter.open(options.mongodbUri, options.clock)
    : await EmbeddedAdapter.open(options.dataDir, options.clock, options.onRepair);
  return openRepositories(adapter);
}
