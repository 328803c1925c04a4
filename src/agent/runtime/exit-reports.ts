import { join } from 'node:path';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import { exitAlreadyReported } from './last-run.js';
import { settleWithoutShim } from './lost-shim.js';
import type { ExitListener, GameExit, LastRun, OutputLine, RecordFailureListener, RuntimeStatus } from './runtime-types.js';
import { moveIfPresent, stateFiles, writeFileAtomic } from './state-dir.js';

/**
 * Where a game's exit goes once it is known, from its shim or from the files of one that is gone:
 * kept as the server's last run, told to `onExit` once across Agent lives (`exit.json` is moved
 * aside to `reported-exit.json` after), and a record that cannot be written told to `onRecordFailed`.
 */
export class ExitReports {
  private readonly exitListeners = new Set<ExitListener>();
  private readonly recordListeners = new Set<RecordFailureListener>();
  private readonly lastRuns = new Map<string, LastRun>();

  constructor(private readonly logger: Logger, private readonly clock: Clock) {}

  lastRun(serverId: string): LastRun | undefined {
    return this.lastRuns.get(serverId);
  }

  /** A new run begins: the last one is no longer the server's news. */
  forget(serverId: string): void {
    this.lastRuns.delete(serverId);
  }

  onExit(listener: ExitListener): () => void {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  onRecordFailed(listener: RecordFailureListener): () => void {
    this.recordListeners.add(listener);
    return () => this.recordListeners.delete(listener);
  }

  /** An exit read from its shim with the end of its console; an earlier Agent life may have reported it already. */
  async collected(serverId: string, stateDir: string, exit: GameExit, lines: OutputLine[]): Promise<void> {
    this.lastRuns.set(serverId, { exit, lines });
    if (!(await exitAlreadyReported(stateDir, exit))) this.emit(serverId, exit, lines);
    await this.record(serverId, stateDir, exit);
  }

  /** No shim answers for the server: its files say whether a game ran, and how it ended. */
  async settleFromFiles(serverId: string, stateDir: string): Promise<RuntimeStatus> {
    const settled = await settleWithoutShim(stateDir, this.clock);
    if (settled.kind === 'none') return { state: 'absent' };
    if (settled.kind === 'unreported') {
      this.lastRuns.set(serverId, { exit: settled.exit, lines: [] });
      this.emit(serverId, settled.exit, []);
      await this.record(serverId, stateDir, settled.exit);
    }
    return { state: 'exited', exit: settled.exit, startedAt: settled.startedAt };
  }

  /**
   * The record only keeps a later adoption from reporting the exit again; the exit itself is known
   * and reported. So a record that cannot be written never fails the stop (a stop failing for it
   * would be retried for ever while the game is long gone): the listeners hear it instead.
   */
  private async record(serverId: string, stateDir: string, exit: GameExit): Promise<void> {
    try {
      const moved = await moveIfPresent(join(stateDir, stateFiles.exit), join(stateDir, stateFiles.reportedExit));
      if (!moved) await writeFileAtomic(join(stateDir, stateFiles.reportedExit), `${JSON.stringify(exit)}\n`);
    } catch (error) {
      this.logger.warn({ serverId, err: error }, 'the game\'s exit could not be recorded');
      for (const listener of this.recordListeners) listener(serverId, join(stateDir, stateFiles.reportedExit), error);
    }
  }

  private emit(serverId: string, exit: GameExit, lastLines: readonly OutputLine[]): void {
    for (const listener of this.exitListeners) {
      try {
        listener(serverId, exit, lastLines);
      } catch (error) {
        this.logger.error({ serverId, err: error }, 'an exit listener failed');
      }
    }
  }
}
