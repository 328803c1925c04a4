/** The `line` event of the console stream. */
export interface ConsoleLineEvent {
  text: string;
  at: string;
  truncated: boolean;
  replay: boolean;
}

/** The `replayed` event of the console stream: the replayed tail is over; `lines` counts it. */
export interface ConsoleReplayedEvent {
  lines: number;
}

/**
 * Why a console stream ended: the Agent's `stopped`, `crashed`, `killed` or `lost` (the wire carries
 * it as text, so new reasons may appear), or the Controller's `node_unavailable`, `lagging` or `shutdown`.
 */
export type ConsoleStreamEndReason = string;

/** The `end` event of the console stream. */
export interface ConsoleEndEvent {
  reason: ConsoleStreamEndReason;
  exitCode?: number;
  signal?: string;
}
