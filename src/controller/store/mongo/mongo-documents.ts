import { MongoNetworkError, MongoNotConnectedError, MongoServerError, MongoServerSelectionError, MongoWriteConcernError, type Document } from 'mongodb';
import { StoreUnavailableError } from '../../core/store-unavailable.js';
import { DuplicateKeyError, type Filter } from '../collection.js';

/** The id when the filter selects exactly one document by `_id` (and maybe more conditions on it). */
export const singleIdOf = (filter: Filter): string | undefined => (typeof filter._id === 'string' ? filter._id : undefined);

/**
 * The field a duplicate-key error names. MongoDB says it in `keyPattern` and `keyValue`; some
 * compatible servers (DocumentDB, Cosmos DB, FerretDB) leave those out, so the index name in the
 * message (`index: nameKey_1 dup key`) is read as a fallback.
 */
export function duplicateFieldOf(e: MongoServerError): string {
  const structured = (e.keyPattern ?? e.keyValue) as Document | undefined;
  const fromStructure = structured && Object.keys(structured)[0];
  if (fromStructure) return fromStructure;
  const index = /index:\s+(?:\S+\.\$)?([A-Za-z0-9_.$-]+?)(?:_-?1)?(?:\s|$)/.exec(e.message)?.[1];
  return index === '_id_' || index === undefined ? '_id' : index;
}

/** Error codes of a server that cannot serve now: not primary, shutting down, a majority wait timed out. */
const unavailableCodes = new Set([6, 7, 64, 89, 91, 189, 9001, 10107, 11600, 11602, 13435, 13436]);

/** Whether the driver gave up on reaching the store, as opposed to the store refusing the operation. */
export const isUnavailable = (e: unknown): e is Error =>
  e instanceof MongoNetworkError || e instanceof MongoServerSelectionError || e instanceof MongoNotConnectedError ||
  (e instanceof MongoWriteConcernError && e.code === 64) || (e instanceof MongoServerError && typeof e.code === 'number' && unavailableCodes.has(e.code));

/** Turns a duplicate key and an unreachable store into the store's own errors; anything else is rethrown unchanged. */
export function mapDriverError(e: unknown): never {
  if (e instanceof MongoServerError && (e.code === 11000 || e.code === 11001)) throw new DuplicateKeyError(duplicateFieldOf(e));
  if (isUnavailable(e)) throw new StoreUnavailableError(e);
  throw e;
}
