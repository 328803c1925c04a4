import type { AuditEventRecord, AuditQuery } from '../../records.js';

/** The fields `GET /audit-events` filters on by equality; each segment's posting lists cover them. */
export const filterFields = ['actorUserId', 'targetKind', 'targetId', 'action', 'outcome'] as const;

const keyOf = (field: number, value: string) => `${field}\u0000${value}`;
/** The key naming a target by kind and id together: an id alone can be shared by several kinds' targets. */
const targetPairKey = (kind: string, id: string) => keyOf(2 * filterFields.length, `${kind}\u0000${id}`);

/**
 * The posting keys of a set of filter values: one per field, and for a refusal or failure one more
 * per field paired with the outcome, so "what did this user get refused" reads only the refusals,
 * not every event of that user. SUCCESS, nearly every event, gets no pairs.
 */
function keysOf(values: Partial<Record<(typeof filterFields)[number], string>>): string[] {
  const keys: string[] = [];
  const rare = values.outcome !== undefined && values.outcome !== 'SUCCESS' ? values.outcome : undefined;
  filterFields.forEach((field, i) => {
    const value = values[field];
    if (value === undefined) return;
    keys.push(keyOf(i, value));
    if (rare !== undefined && field !== 'outcome') keys.push(keyOf(i + filterFields.length, `${rare}\u0000${value}`));
  });
  return keys;
}

/** An event's keys: its fields', and its target's kind and id as one more. */
export const eventKeys = (event: AuditEventRecord): string[] => [...keysOf(event), targetPairKey(event.targetKind, event.targetId)];

/**
 * A query's keys for posting lists that hold target pairs (the open segment's, and files written
 * since they were added) and for those written before, which hold the fields' keys only.
 */
export interface SearchKeys {
  withTargetPairs: string[];
  withoutTargetPairs: string[];
}

export function queryKeys(query: AuditQuery): SearchKeys {
  const withoutTargetPairs = keysOf(query);
  if (query.targetKind === undefined || query.targetId === undefined) return { withTargetPairs: withoutTargetPairs, withoutTargetPairs };
  // The pair implies both of its values: their own keys would only cost lookups, and the id's
  // list also names the events of other kinds' targets with that id.
  const implied = new Set([keyOf(filterFields.indexOf('targetKind'), query.targetKind), keyOf(filterFields.indexOf('targetId'), query.targetId)]);
  return { withTargetPairs: [...withoutTargetPairs.filter((k) => !implied.has(k)), targetPairKey(query.targetKind, query.targetId)], withoutTargetPairs };
}

export function matches(event: AuditEventRecord, query: AuditQuery): boolean {
  if (query.beforeId !== undefined && event.id >= query.beforeId) return false;
  if (query.since !== undefined && event.occurredAt < query.since) return false;
  if (query.until !== undefined && event.occurredAt >= query.until) return false;
  return filterFields.every((f) => query[f] === undefined || event[f] === query[f]);
}

/**
 * A run of consecutive lines of one segment file: where its bytes are and which ids and times it
 * holds. A search without filter values reads the blocks whose ranges admit it; one with filter
 * values reads the posting lists and uses the blocks only to bound ids and times to byte offsets.
 */
export class Block {
  firstId = Number.MAX_SAFE_INTEGER;
  lastId = 0;
  minTime = '\uffff';
  maxTime = '';
  length = 0;
  lines = 0;

  constructor(readonly offset: number) {}

  static sealed(fields: { offset: number; length: number; lines: number; firstId: number; lastId: number; minTime: string; maxTime: string }): Block {
    const block = new Block(fields.offset);
    block.length = fields.length;
    block.lines = fields.lines;
    block.firstId = fields.firstId;
    block.lastId = fields.lastId;
    block.minTime = fields.minTime;
    block.maxTime = fields.maxTime;
    return block;
  }

  /** Counts a line; `event` is absent for a line that does not parse (its bytes still belong here). */
  add(bytes: number, event?: AuditEventRecord): void {
    this.length += bytes;
    this.lines += 1;
    if (!event) return;
    if (event.id < this.firstId) this.firstId = event.id;
    if (event.id > this.lastId) this.lastId = event.id;
    if (event.occurredAt < this.minTime) this.minTime = event.occurredAt;
    if (event.occurredAt > this.maxTime) this.maxTime = event.occurredAt;
  }

  get isEmpty(): boolean {
    return this.lastId === 0;
  }

  /** False when no event of this block can match the query's id and time bounds. */
  mayMatch(query: AuditQuery): boolean {
    if (this.isEmpty) return false;
    if (query.beforeId !== undefined && this.firstId >= query.beforeId) return false;
    if (query.since !== undefined && this.maxTime < query.since) return false;
    if (query.until !== undefined && this.minTime >= query.until) return false;
    return true;
  }
}
