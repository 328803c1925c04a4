import type { Logger } from '../../shared/logger.js';
import type { ProcessUsage } from '../runtime/process-usage.js';
import { loadHistory, saveHistory } from './history-file.js';
import { pingDefaults, pingPlayers, type PingedPlayers } from './slp-client.js';
import { UsageHistory, type UsagePoint, type UsageWindow } from './usage-history.js';

/** Samples between two saves of the history: ten minutes at the default interval, all an Agent that dies loses. */
const samplesPerSave = 60;

export interface SamplerDeps {
  /** The game's CPU time and memory now; null when it is gone. */
  usage(): Promise<ProcessUsage | null>;
  /** How often `sample` is called: the history's fine interval. */
  intervalMs: number;
  /** Where the game's port is reached from the Agent (its bind address, or loopback for a wildcard). */
  pingHost: string;
  ping?: typeof pingPlayers;
  now?: () => number;
  /** Where the history is saved between two runs of the Agent; none: kept in memory only. */
  historyFile?: string;
  logger?: Logger;
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
 * server's usage history. The history is allocated at the first sample (or taken up from the
 * previous run of the Agent), so servers that never run here cost nothing.
 */
export class StatusSampler {
  usage = { cpuMillis: 0, memoryBytes: 0, diskBytes: 0 };
  players: PingedPlayers | null = null;
  /** What the game last said of itself (its version and description), kept after it stops: its sleeping port says it. */
  lastGame?: NonNullable<PingedPlayers['game']> & { maxPlayers: number };
  private history?: UsageHistory;
  private lastCpu?: { pid: number; cpuMs: number; atMs: number };
  /** The saved history being read: the first sample waits for it, so none is lost to it. */
  private readonly loaded: Promise<void>;
  private sinceSave = 0;
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly deps: SamplerDeps) {
    this.loaded = this.load();
  }

  /** The history the previous run of the Agent saved, if it was taken at this interval (else its windows would be wrong). */
  private async load(): Promise<void> {
    const file = this.deps.historyFile;
    if (!file) return;
    try {
      const saved = await loadHistory(file);
      if (saved && saved.intervalMs === this.deps.intervalMs) this.history = UsageHistory.from(saved);
      else if (saved) this.deps.logger?.info({ file, savedIntervalMs: saved.intervalMs }, 'the saved usage history was taken at another interval; starting a new one');
    } catch (err) {
      this.deps.logger?.warn({ err, file }, 'the saved usage history could not be read; starting a new one');
    }
  }

  /**
   * Saves the history (at the Agent's stop, and every `samplesPerSave` samples), one save at a
   * time since they share the temporary file; a failure is logged, never thrown.
   */
  save(): Promise<void> {
    this.saving = this.saving.then(async () => {
      await this.loaded;
      const file = this.deps.historyFile;
      if (!file || !this.history) return;
      this.sinceSave = 0;
      await saveHistory(file, this.history.saved()).catch((err: unknown) => this.deps.logger?.warn({ err, file }, 'the usage history could not be saved'));
    });
    return this.saving;
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  async sample(of: SampleOf): Promise<void> {
    await this.loaded;
    const ping = this.deps.ping ?? pingPlayers;
    const [process, players] = await Promise.all([
      this.deps.usage().catch(() => null),
      of.ping && of.port > 0 ? ping(this.deps.pingHost, of.port, pingDefaults) : Promise.resolve(null),
    ]);
    this.players = players;
    if (players?.game) this.lastGame = { ...players.game, maxPlayers: players.max };
    if (!process) return;
    const atMs = this.now();
    this.usage = { cpuMillis: this.cpuMillis(process, atMs, of.startedAtMs), memoryBytes: process.memoryBytes, diskBytes: 0 };
    this.history ??= new UsageHistory(this.deps.intervalMs);
    const point: UsagePoint = { atMs, ...this.usage, players: players?.online ?? -1, playersMax: players?.max ?? -1 };
    this.history.record(point);
    if (++this.sinceSave >= samplesPerSave) await this.save();
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
