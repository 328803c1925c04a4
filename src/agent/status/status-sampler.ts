import type { ProcessUsage } from '../runtime/process-usage.js';
import { pingDefaults, pingPlayers, type PingedPlayers } from './slp-client.js';
import { UsageHistory, type UsagePoint, type UsageWindow } from './usage-history.js';

export interface SamplerDeps {
  /** The game's CPU time and memory now; null when it is gone. */
  usage(): Promise<ProcessUsage | null>;
  /** How often `sample` is called: the history's fine interval. */
  intervalMs: number;
  /** Where the game's port is reached from the Agent (its bind address, or loopback for a wildcard). */
  pingHost: string;
  ping?: typeof pingPlayers;
  now?: () => number;
}

/** What a sample is taken of: the game's port, whether to ping it, and when its process started. */
export interface SampleOf {
  port: number;
  /** Only a server that is up (past its ready line) and whose template asks for it is pinged. */
  ping: boolean;
  startedAtMs?: number;
}

/** The address to reach a game bound to `bindAddress` at, from the same host. */
export const pingHostFor = (bindAddress: string) => (bindAddress === '0.0.0.0' ? '127.0.0.1' : bindAddress === '::' ? '::1' : bindAddress);

/**
 * One server's periodic sample: CPU as the share of a core its process used since the previous
 * sample (thousandths), resident memory, and players by Server List Ping; each kept in the
 * server's usage history. The history is allocated at the first sample, so servers that never
 * run here cost nothing.
 */
export class StatusSampler {
  usage = { cpuMillis: 0, memoryBytes: 0, diskBytes: 0 };
  players: PingedPlayers | null = null;
  private history?: UsageHistory;
  private lastCpu?: { pid: number; cpuMs: number; atMs: number };

  constructor(private readonly deps: SamplerDeps) {}

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  async sample(of: SampleOf): Promise<void> {
    const ping = this.deps.ping ?? pingPlayers;
    const [process, players] = await Promise.all([
      this.deps.usage().catch(() => null),
      of.ping && of.port > 0 ? ping(this.deps.pingHost, of.port, pingDefaults) : Promise.resolve(null),
    ]);
    this.players = players;
    if (!process) return;
    const atMs = this.now();
    this.usage = { cpuMillis: this.cpuMillis(process, atMs, of.startedAtMs), memoryBytes: process.memoryBytes, diskBytes: 0 };
    this.history ??= new UsageHistory(this.deps.intervalMs);
    const point: UsagePoint = { atMs, ...this.usage, players: players?.online ?? -1, playersMax: players?.max ?? -1 };
    this.history.record(point);
  }

  /** The process ended: nothing of it is current any more (its history stays). */
  ended(): void {
    this.usage = { cpuMillis: 0, memoryBytes: 0, diskBytes: 0 };
    this.players = null;
    this.lastCpu = undefined;
  }

  window(window: UsageWindow): { intervalMs: number; points: UsagePoint[] } {
    return this.history?.window(window, this.now()) ?? { intervalMs: this.deps.intervalMs * (window === '6h' || window === '24h' ? 6 : 1), points: [] };
  }

  /** Thousandths of a core since the previous sample of the same process; the first, since it started. */
  private cpuMillis(process: ProcessUsage, atMs: number, startedAtMs?: number): number {
    const last = this.lastCpu?.pid === process.pid ? this.lastCpu : undefined;
    this.lastCpu = { pid: process.pid, cpuMs: process.cpuMillis, atMs };
    const since = last ? { cpuMs: last.cpuMs, atMs: last.atMs } : startedAtMs !== undefined ? { cpuMs: 0, atMs: startedAtMs } : undefined;
    if (!since || atMs <= since.atMs) return 0;
    return Math.max(0, Math.round(((process.cpuMillis - since.cpuMs) / (atMs - since.atMs)) * 1000));
  }
}
