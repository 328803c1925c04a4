/** `cairn-agent --isolation`: `auto` boxes what the host allows, `required` starts nothing unboxed, `off` never boxes. */
export const isolationModes = ['auto', 'required', 'off'] as const;
export type IsolationMode = (typeof isolationModes)[number];

/** What this Node enforces on its games (the Node's `status.isolation`). */
export interface IsolationSupport {
  users: boolean;
  filesystem: boolean;
  memory: boolean;
  cpu: boolean;
  /** At most `maxTasks` (4096) tasks per game. */
  pids: boolean;
  /** Each game has a network namespace of its own: its ports and nothing else. */
  network: boolean;
}

export const noIsolation: IsolationSupport = { users: false, filesystem: false, memory: false, cpu: false, pids: false, network: false };

/** The Node condition and the server condition a missing part of the box raises. */
export const isolationUnavailableReason = 'ISOLATION_UNAVAILABLE';

/** The words of ISOLATION_UNAVAILABLE: what runs unboxed (auto) or is refused (required), and why. */
export function isolationUnavailableMessage(mode: IsolationMode, missing: readonly string[]): string {
  const why = missing.join('; ');
  return mode === 'required'
    ? `Games are not started: --isolation required, and ${why}.`
    : `Games run without full isolation: ${why}.`;
}
