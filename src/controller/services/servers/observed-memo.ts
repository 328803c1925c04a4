import type { Phase, ServerObserved } from '../../domain/server-spec.js';
import type { Shared } from '../../store/collection.js';
import type { ServerDoc } from '../../store/records.js';

/** Usage changes on every report; it is written at most this often unless something else changed. */
export const usageWriteEverySeconds = 30;

/** What a server's record held when it was last read or written: its Node, its phase and its observed status. */
export interface KnownObserved {
  nodeId?: string;
  phase: Phase;
  observed: ServerObserved;
}

/** The fields a report sets; a stored status with any other is rewritten. */
const reportedFields = new Set(['observedGeneration', 'runtimeState', 'installed', 'restarting', 'startedInNetwork', 'usage', 'conditions', 'startedAt', 'pid', 'players', 'sleeping', 'lastWake', 'reportedAt']);

/** Field by field: reports arrive by the hundred thousand, and a JSON copy of each to compare was a tenth of the Controller's work. */
function sameApartFromUsage(a: ServerObserved, b: ServerObserved): boolean {
  if (a.observedGeneration !== b.observedGeneration || a.runtimeState !== b.runtimeState || a.installed !== b.installed || a.restarting !== b.restarting
    || a.startedInNetwork !== b.startedInNetwork || a.startedAt !== b.startedAt || a.pid !== b.pid
    || a.players?.online !== b.players?.online || a.players?.max !== b.players?.max
    || a.sleeping?.since !== b.sleeping?.since || a.lastWake?.at !== b.lastWake?.at) return false;
  if (a.conditions.length !== b.conditions.length || (a.conditions.length > 0 && JSON.stringify(a.conditions) !== JSON.stringify(b.conditions))) return false;
  return Object.keys(a).every((field) => reportedFields.has(field));
}

const sameUsage = (a: ServerObserved['usage'], b: ServerObserved['usage']) => a.cpuMillis === b.cpuMillis && a.memoryBytes === b.memoryBytes && a.diskBytes === b.diskBytes;

/** Is a newly reported status worth writing over the one stored? Usage alone is written at most every 30 s, but for disk bytes of a server with no process. */
export function worthWriting(stored: ServerObserved, observed: ServerObserved): boolean {
  if (!sameApartFromUsage(stored, observed)) return true;
  if (sameUsage(stored.usage, observed.usage)) return false;
  // Without a process no sample follows to carry a new diskBytes later: held back, it would be lost.
  const sampled = observed.usage.cpuMillis > 0 || observed.usage.memoryBytes > 0;
  if (!sampled && stored.usage.diskBytes !== observed.usage.diskBytes) return true;
  return !stored.reportedAt || Date.parse(observed.reportedAt!) - Date.parse(stored.reportedAt) >= usageWriteEverySeconds * 1000;
}

/** What is known of each server's record without reading it (as last read or written). */
export interface KnownRecords {
  /** The record as just read or written. */
  saw(doc: Pick<ServerDoc, '_id' | 'nodeId' | 'phase' | 'observed'>): void;
  forget(serverId: string): void;
  get(serverId: string): KnownObserved | undefined;
}

/**
 * On a store that holds every record in this process's memory (the embedded one, whose files no
 * other process writes), its own document is the record as last written: keeping a copy of each
 * beside it held a second observed status per server (30 MiB of heap at 100,000 servers, traced
 * by every major GC).
 */
export class LentRecords implements KnownRecords {
  constructor(private readonly lend: (serverId: string) => Shared<ServerDoc> | undefined) {}

  saw(): void {}

  forget(): void {}

  get(serverId: string): KnownObserved | undefined {
    // Read only: `worthWriting` compares, nobody changes it.
    return this.lend(serverId) as KnownObserved | undefined;
  }
}

/**
 * Each server's record as far as reports need it, kept beside the store by the aggregate, which
 * writes server records. An Agent reports every server again whenever it connects and at each
 * step of its work, and most reports change nothing: checked against this, they cost no read of
 * the record, which on the embedded store waited in the servers collection's one queue.
 */
export class ObservedMemo implements KnownRecords {
  private readonly known = new Map<string, KnownObserved>();

  /** The record as just read or written. */
  saw(doc: Pick<ServerDoc, '_id' | 'nodeId' | 'phase' | 'observed'>): void {
    // The record's own copy (read from the store, or the one just written): nobody changes it afterwards.
    this.known.set(doc._id, { nodeId: doc.nodeId, phase: doc.phase, observed: doc.observed });
  }

  forget(serverId: string): void {
    this.known.delete(serverId);
  }

  get(serverId: string): KnownObserved | undefined {
    return this.known.get(serverId);
  }
}
