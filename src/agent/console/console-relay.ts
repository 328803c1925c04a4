import type { ConsoleEnd, ConsoleLine, ConsoleReplay } from '../../shared/link/messages.js';
import { KeyedMutex } from '../../shared/keyed-mutex.js';
import { AgentError } from '../errors.js';
import { isRuntimeError } from '../runtime/errors.js';
import type { AttachEnd, OutputLine, ServerRuntime } from '../runtime/runtime-types.js';

/** The most lines one replay may ask for (the Controller's API allows 0..1000). */
export const maxReplayLines = 1000;
/** How long a replay waits for its lines after the shim accepted the reader. */
const replayTimeoutMs = 5_000;

export interface RelayTarget {
  sendLine(line: ConsoleLine): void;
  sendEnd(end: ConsoleEnd): void;
}

/** A line as the link carries it, dated when it was printed (a shim older than that field: when it was read here). */
const toLink = (serverId: string, line: OutputLine): ConsoleLine => ({
  serverId, text: line.text, atUnixMs: line.at ?? Date.now(), truncated: line.truncated, seq: line.seq,
});

/** Why a console ended, in the words of the API's `end` event. */
export function endOf(serverId: string, end: AttachEnd): ConsoleEnd {
  if (end.kind === 'lost') return { serverId, reason: 'lost', exitCode: 0, hasExitCode: false, signal: '' };
  const { exit } = end;
  let reason: ConsoleEnd['reason'];
  if (exit.cause === 'stopped') reason = 'stopped';
  else if (exit.cause === 'killed') reason = 'killed';
  else if (exit.cause === 'shim_lost') reason = 'lost';
  else reason = exit.cause === 'exited' && exit.code === 0 ? 'stopped' : 'crashed';
  return { serverId, reason, exitCode: exit.code ?? 0, hasExitCode: exit.code !== null, signal: exit.signal ?? '' };
}

/**
 * Console subscriptions of this Agent: at most one live reader per server, shared by everyone the
 * Controller relays to (it counts its own watchers and unsubscribes when the last one leaves), so
 * nothing is sent for a server nobody watches. Replays use a short-lived reader of their own.
 */
export class ConsoleRelay {
  private readonly live = new Map<string, () => void>();
  private readonly locks = new KeyedMutex();

  constructor(private readonly runtime: ServerRuntime, private readonly target: RelayTarget) {}

  get subscribed(): string[] {
    return [...this.live.keys()];
  }

  /** Makes sure the server's lines flow, then returns its last `tail` lines (oldest first). */
  subscribe(serverId: string, tail: number): Promise<ConsoleLine[]> {
    return this.locks.run(serverId, async () => {
      if (!this.live.has(serverId)) {
        const detach = await this.attach(serverId, 0, (line) => this.target.sendLine(toLink(serverId, line)), (end) => {
          if (!this.live.delete(serverId)) return;
          this.target.sendEnd(endOf(serverId, end));
        });
        this.live.set(serverId, detach);
      }
      return tail > 0 ? this.replay(serverId, Math.min(tail, maxReplayLines)) : [];
    });
  }

  /** Stops the server's lines; nothing happens if none flow. */
  unsubscribe(serverId: string): Promise<void> {
    return this.locks.run(serverId, async () => {
      const detach = this.live.get(serverId);
      this.live.delete(serverId);
      detach?.();
    });
  }

  /** Drops every subscription (the Controller that asked for them is gone). */
  unsubscribeAll(): void {
    for (const [serverId, detach] of this.live) {
      this.live.delete(serverId);
      detach();
    }
  }

  /**
   * The last `tail` lines of the server's last run and how it ended, once its game exited (the
   * Agent keeps them after the shim left); undefined when this Agent saw no run of the server end.
   */
  ended(serverId: string, tail: number): ConsoleReplay | undefined {
    const last = this.runtime.lastRun(serverId);
    if (!last) return undefined;
    const take = Math.min(tail, maxReplayLines);
    const entries = take > 0 ? last.lines.slice(-take).map((line) => toLink(serverId, line)) : [];
    return { lines: entries.map((e) => e.text), entries, end: endOf(serverId, { kind: 'exit', exit: last.exit }) };
  }

  private async replay(serverId: string, tail: number): Promise<ConsoleLine[]> {
    const lines: ConsoleLine[] = [];
    let expected = -1;
    let finish!: () => void;
    const complete = new Promise<void>((resolve) => (finish = resolve));
    const check = () => {
      if (expected >= 0 && lines.length >= expected) finish();
    };
    const detach = await this.attach(serverId, tail, (line) => {
      if (lines.length < expected || expected < 0) lines.push(toLink(serverId, line));
      check();
    }, () => finish(), (replayed) => {
      expected = replayed;
      check();
    });
    const timer = setTimeout(finish, replayTimeoutMs);
    try {
      await complete;
    } finally {
      clearTimeout(timer);
      detach();
    }
    return expected >= 0 ? lines.slice(0, expected) : lines;
  }

  private async attach(serverId: string, tail: number, onLine: (line: OutputLine) => void, onEnd: (end: AttachEnd) => void, onAttached?: (n: number) => void): Promise<() => void> {
    try {
      return await this.runtime.attach(serverId, { tail, onEnd, onAttached }, onLine);
    } catch (e) {
      if (isRuntimeError(e, 'not_running')) throw new AgentError('SERVER_NOT_RUNNING', 'The server is not running.');
      throw e;
    }
  }
}
