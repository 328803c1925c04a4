import type { MongoClientOptions } from 'mongodb';

/**
 * The client's behaviour, set here rather than left to whatever the URI says (options given in
 * code win over the URI's). Reads go to the primary and writes wait for a majority, so an
 * acknowledged change survives a failover. The driver in use ignores `timeoutMS`, so time is
 * bounded by its parts: 5 s to find a primary (an outage fails a request in about that, twice for
 * a retried write), 10 s of silence on a socket (a black-holed connection), 5 s for a majority.
 */
export const mongoClientOptions: MongoClientOptions = {
  appName: 'cairn-controller',
  readPreference: 'primary',
  readConcern: { level: 'local' },
  writeConcern: { w: 'majority', wtimeoutMS: 5_000 },
  retryWrites: true,
  retryReads: true,
  // The adapter strips undefined fields itself (withoutUndefined); this is the driver's default, stated.
  ignoreUndefined: false,
  serverSelectionTimeoutMS: 5_000,
  connectTimeoutMS: 5_000,
  socketTimeoutMS: 10_000,
  waitQueueTimeoutMS: 5_000,
};

/**
 * Leases are read with `majority` as well: a lease read that a failover could roll back would let
 * two Controllers each believe they hold the same Node. Writes are `majority` for every collection
 * (above), stated again here so the lease collection keeps it whatever the client's defaults
 * become. FerretDB accepts both and ignores them (it has no replication).
 */
export const majorityConcerns = {
  readConcern: { level: 'majority' },
  writeConcern: { w: 'majority', wtimeoutMS: 5_000 },
} as const;

/** The collections read and written with `majorityConcerns`. */
export const majorityCollections: ReadonlySet<string> = new Set(['leases']);
