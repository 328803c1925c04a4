/** One sample of a running server: CPU in thousandths of a core, resident memory, players when its ping answered. */
export interface UsagePoint {
  atMs: number;
  cpuMillis: number;
  memoryBytes: number;
  /** -1: unknown (the server did not answer its ping, or its template asks none). */
  players: number;
  /** The most the server takes, as its ping answered; -1 when unknown. */
  playersMax: number;
}

export const usageWindows = ['10m', '1h', '6h', '24h'] as const;
export type UsageWindow = (typeof usageWindows)[number];
export const isUsageWindow = (w: string): w is UsageWindow => (usageWindows as readonly string[]).includes(w);

/** Fine samples kept: an hour of 10-second samples. */
export const fineSlots = 360;
/** Coarse samples kept: a day of 1-minute samples. */
export const coarseSlots = 1440;
/** Fine samples that make one coarse sample. */
export const finePerCoarse = 6;

const windowSpans: Record<UsageWindow, { coarse: boolean; intervals: number }> = {
  '10m': { coarse: false, intervals: 60 },
  '1h': { coarse: false, intervals: fineSlots },
  '6h': { coarse: true, intervals: 360 },
  '24h': { coarse: true, intervals: coarseSlots },
};

/**
 * A fixed ring of samples in typed arrays: its memory is the same whether it is empty or full, and
 * no object per sample lives on (a day of 1,800 samples per server, for every server of the Node).
 */
class Ring {
  private readonly at: Float64Array;
  private readonly cpu: Uint32Array;
  private readonly memory: Float64Array;
  private readonly players: Int32Array;
  private readonly playersMax: Int32Array;
  private next = 0;
  private size = 0;

  constructor(readonly capacity: number) {
    this.at = new Float64Array(capacity);
    this.cpu = new Uint32Array(capacity);
    this.memory = new Float64Array(capacity);
    this.players = new Int32Array(capacity);
    this.playersMax = new Int32Array(capacity);
  }

  push(p: UsagePoint): void {
    const i = this.next;
    this.at[i] = p.atMs;
    this.cpu[i] = Math.min(p.cpuMillis, 0xffffffff);
    this.memory[i] = p.memoryBytes;
    this.players[i] = p.players;
    this.playersMax[i] = p.playersMax;
    this.next = (i + 1) % this.capacity;
    this.size = Math.min(this.size + 1, this.capacity);
  }

  /** The samples taken after `sinceMs`, oldest first. */
  since(sinceMs: number): UsagePoint[] {
    const out: UsagePoint[] = [];
    for (let k = this.size; k > 0; k--) {
      const i = (this.next - k + this.capacity) % this.capacity;
      if (this.at[i] <= sinceMs) continue;
      out.push({ atMs: this.at[i], cpuMillis: this.cpu[i], memoryBytes: this.memory[i], players: this.players[i], playersMax: this.playersMax[i] });
    }
    return out;
  }

  get bytes(): number {
    return this.at.byteLength + this.cpu.byteLength + this.memory.byteLength + this.players.byteLength + this.playersMax.byteLength;
  }
}

/** Six fine samples as one coarse one: CPU their mean, memory and players their highest (a peak is what an operator looks for). */
function merge(points: readonly UsagePoint[]): UsagePoint {
  const last = points[points.length - 1];
  const known = points.filter((p) => p.players >= 0);
  return {
    atMs: last.atMs,
    cpuMillis: Math.round(points.reduce((sum, p) => sum + p.cpuMillis, 0) / points.length),
    memoryBytes: Math.max(...points.map((p) => p.memoryBytes)),
    players: known.length > 0 ? Math.max(...known.map((p) => p.players)) : -1,
    playersMax: known.length > 0 ? known[known.length - 1].playersMax : -1,
  };
}

/** A history as it is saved between two runs of its Agent, oldest sample first in each list. */
export interface SavedHistory {
  intervalMs: number;
  fine: UsagePoint[];
  coarse: UsagePoint[];
  /** Fine samples not yet merged into a coarse one. */
  pending: UsagePoint[];
}

/**
 * A server's usage over the last day, kept by its Agent in memory: a sample every status interval
 * (10 s) for the last hour and one per six of them (a minute) for the last day. Only times the
 * server ran have samples. The Agent saves it now and then and at its stop (`saved`), and takes
 * it up again at its next start (`from`).
 */
export class UsageHistory {
  private readonly fine = new Ring(fineSlots);
  private readonly coarse = new Ring(coarseSlots);
  private pending: UsagePoint[] = [];

  constructor(readonly intervalMs: number) {}

  static from(saved: SavedHistory): UsageHistory {
    const history = new UsageHistory(saved.intervalMs);
    for (const point of saved.fine) history.fine.push(point);
    for (const point of saved.coarse) history.coarse.push(point);
    history.pending = saved.pending.slice(-(finePerCoarse - 1));
    return history;
  }

  saved(): SavedHistory {
    return { intervalMs: this.intervalMs, fine: this.fine.since(-Infinity), coarse: this.coarse.since(-Infinity), pending: [...this.pending] };
  }

  record(point: UsagePoint): void {
    this.fine.push(point);
    this.pending.push(point);
    if (this.pending.length === finePerCoarse) {
      this.coarse.push(merge(this.pending));
      this.pending = [];
    }
  }

  /** The window's samples, oldest first, and the time between two of them. */
  window(window: UsageWindow, nowMs: number): { intervalMs: number; points: UsagePoint[] } {
    const span = windowSpans[window];
    const intervalMs = span.coarse ? this.intervalMs * finePerCoarse : this.intervalMs;
    const ring = span.coarse ? this.coarse : this.fine;
    return { intervalMs, points: ring.since(nowMs - span.intervals * intervalMs) };
  }

  /** The memory its samples take (fixed: allocated whole when the history begins). */
  get bytes(): number {
    return this.fine.bytes + this.coarse.bytes + finePerCoarse * 48;
  }
}
