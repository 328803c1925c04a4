import { MongoNetworkError, MongoNotConnectedError, MongoServerError, MongoServerSelectionError, MongoWriteConcernError, type Document } from 'mongodb';
import { StoreUnavailableError } from '../../core/store-unavailable.js';
import { DuplicateKeyError, type Filter } from '../collection.js';

/** The id when the filter selects exactly one document by `_id` (and maybe more conditions on it). */
export const singleIdOf = (filter: Filter): string | undefined => (typeof filter._id === 'string' ? filter._id : undefined);

/**
 * The field a duplicate-key error names, when it names one. MongoDB says it in `keyPattern` and
 * `keyValue`; DocumentDB and Cosmos DB only in the message (`index: nameKey_1 dup key`); FerretDB's
 * SQLite backend in its constraint's words (`UNIQUE constraint failed: index 'servers_1a2b_nameKey_1'`,
 * code 1 on an update) or not at all (a bare E11000 on an insert): then undefined.
 */
export function duplicateFieldOf(e: MongoServerError): string | undefined {
  const structured = (e.keyPattern ?? e.keyValue) as Document | undefined;
  const fromStructure = structured && Object.keys(structured)[0];
  if (fromStructure) return fromStructure;
  const index = /index:\s+(?:\S+\.\$)?([A-Za-z0-9_.$-]+?)(?:_-?1)?(?:\s|$)/.exec(e.message)?.[1];
  if (index !== undefined) return index === '_id_' ? '_id' : index;
  const constraint = /UNIQUE constraint failed: index '[^']*?_([A-Za-z0-9.$]+)_1'/.exec(e.message)?.[1];
  return constraint;
}

/** A write refused for a duplicate value: MongoDB's E11000, or FerretDB's SQLite constraint under code 1. */
export const isDuplicate = (e: unknown): e is MongoServerError =>
  e instanceof MongoServerError && (e.code === 11000 || e.code === 11001 || (e.code === 1 && /UNIQUE constraint failed/.test(e.message)));

/** Error codes of a server that cannot serve now: not primary, shutting down, a majority wait timed out. */
const unavailableCodes = new Set([6, 7, 64, 89, 91, 189, 9001, 10107, 11600, 11602, 13435, 13436]);

/**
 * Socket errors the driver lets through unwrapped: a command written on a connection the store's
 * side has just closed fails with Node's own EPIPE ("This socket has been ended by the other party")
 * rather than a MongoNetworkError (seen with driver 7.9 when the connections were cut under it).
 */
const socketErrorCodes = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * The driver's own give-ups that name no network fault: every pooled connection busy past
 * `waitQueueTimeoutMS` (they all wait on a store that does not answer) and a `timeoutMS` spent.
 * The first is not exported by the driver, so it is known by name.
 */
const timeoutNames = new Set(['MongoWaitQueueTimeoutError', 'MongoOperationTimeoutError']);

/** Whether the driver gave up on reaching the store, as opposed to the store refusing the operation. */
export const isUnavailable = (e: unknown): e is Error =>
  e instanceof MongoNetworkError || e instanceof MongoServerSelectionError || e instanceof MongoNotConnectedError ||
  (e instanceof MongoWriteConcernError && e.code === 64) || (e instanceof MongoServerError && typeof e.code === 'number' && unavailableCodes.has(e.code)) ||
  (e instanceof Error && (timeoutNames.has(e.name) || socketErrorCodes.has(String((e as NodeJS.ErrnoException).code))));

/** Turns a duplicate key and an unreachable store into the store's own errors; anything else is rethrown unchanged. */
export function mapDriverError(e: unknown): never {
  if (isDuplicate(e)) throw new DuplicateKeyError(duplicateFieldOf(e) ?? '_id');
  if (isUnavailable(e)) throw new StoreUnavailableError(e);
  throw e;
}
