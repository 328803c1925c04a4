import type { ServerTarget } from './server-target.js';

/**
 * How many automatic restarts followed crashes, reported with the last crash. The count starts
 * again at the first crash of a game the Controller asked to start, not at the start itself: until
 * the game crashes again, the last crash keeps the restarts that followed it.
 */
export interface RestartCount {
  restarts: number;
  /** The game was last launched by an automatic restart. */
  automaticRun: boolean;
}

/** The Controller asked for a start: the server turned RUNNING, or a restart was asked for. */
export const startAsked = (before: ServerTarget, after: ServerTarget): boolean => after.state === 'RUNNING'
  && (before.state !== 'RUNNING' || before.restartNonce !== after.restartNonce);

export const restartsAtCrash = (count: RestartCount): number => (count.automaticRun ? count.restarts : 0);
