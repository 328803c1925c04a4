import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedAdapter } from '../../src/controller/store/embedded/embedded-adapter.js';
import type { StoreRepair } from '../../src/controller/store/embedded/torn-tail.js';
import { MongoAdapter } from '../../src/controller/store/mongo/mongo-adapter.js';
import type { StoreAdapter } from '../../src/controller/store/repositories.js';
import { TestClock } from './clock.js';
import { freshTestDatabase, testMongo, type TestMongo } from './test-mongodb.js';

/**
 * One contract, run against every adapter: the embedded store always, and the MongoDB adapter on the
 * test server (MONGODB_URI, else the FerretDB the suite starts: test-mongodb.ts).
 * Each suite opens its own data dir (or database) and drops it afterwards.
 */
export interface AdapterCase {
  name: string;
  open(clock: TestClock): Promise<StoreAdapter>;
  /** Files of the embedded store, for the crash tests; absent for MongoDB. */
  files?: { collection(name: string): string; audit(): string; auditSegments(): string[]; repairs: StoreRepair[] };
  cleanup(): Promise<void>;
}

export interface Thing {
  _id: string;
  name: string;
  nameKey: string;
  email?: string;
  n?: number;
  tags?: string[];
  value?: { done: boolean; label?: string };
  note?: string;
}

export const thingIndexes = [{ field: 'nameKey', unique: true }, { field: 'email', unique: true, sparse: true }, { field: 'n' }];

export const ids = (docs: { _id: string }[]) => docs.map((d) => d._id).sort();

function embeddedCase(): AdapterCase {
  let dir = '';
  const repairs: StoreRepair[] = [];
  return {
    name: 'embedded',
    async open(clock) {
      dir ||= await mkdtemp(join(tmpdir(), 'cairn-store-'));
      return EmbeddedAdapter.open(dir, clock, (repair) => repairs.push(repair));
    },
    files: {
      collection: (name) => join(dir, 'store', `${name}.db`),
      // The segment being appended to: the newest file of the audit directory.
      audit: () => join(dir, 'store', 'audit', readdirSync(join(dir, 'store', 'audit')).filter((n) => n.endsWith('.jsonl')).sort().at(-1)!),
      auditSegments: () => readdirSync(join(dir, 'store', 'audit')).filter((n) => n.endsWith('.jsonl')).map((n) => join(dir, 'store', 'audit', n)),
      repairs,
    },
    cleanup: async () => rm(dir, { recursive: true, force: true }),
  };
}

function mongoCase(mongo: TestMongo): AdapterCase {
  const db = freshTestDatabase(mongo, 'cairn_contract');
  return {
    name: 'mongodb',
    open: async (clock) => MongoAdapter.open(await db.uri(), clock),
    cleanup: () => db.drop(),
  };
}

/** What a part of the contract works with: its adapter (reopened by some tests), the case it came from, its clock. */
export interface ContractStore {
  readonly c: AdapterCase;
  readonly clock: TestClock;
  adapter: StoreAdapter;
}

/**
 * Declares `store contract: <adapter> adapter — <part>` for every adapter, each with a store of its own
 * opened before the part and closed and dropped after it.
 */
export function describeStoreContract(part: string, suite: (store: ContractStore) => void): void {
  const cases: AdapterCase[] = [embeddedCase()];
  if (testMongo) cases.push(mongoCase(testMongo));
  for (const c of cases) {
    const server = c.name === 'mongodb' && testMongo?.kind === 'ferretdb' ? ' on FerretDB' : '';
    describe(`store contract: ${c.name} adapter${server} — ${part}`, () => {
      const store = { c, clock: new TestClock() } as ContractStore;
      before(async () => {
        store.adapter = await c.open(store.clock);
      });
      after(async () => {
        await store.adapter.close();
        await c.cleanup();
      });
      suite(store);
    });
  }
}
