// Original file: proto/cairn/agent/v1/agent.proto

/**
 * A server's runtime state as the Agent observes it.
 */
export const RuntimeState = {
  /**
   * Never sent on purpose; means "not known".
   */
  RUNTIME_STATE_UNSPECIFIED: 'RUNTIME_STATE_UNSPECIFIED',
  RUNTIME_STATE_STOPPED: 'RUNTIME_STATE_STOPPED',
  RUNTIME_STATE_STARTING: 'RUNTIME_STATE_STARTING',
  RUNTIME_STATE_RUNNING: 'RUNTIME_STATE_RUNNING',
  RUNTIME_STATE_STOPPING: 'RUNTIME_STATE_STOPPING',
  RUNTIME_STATE_CRASHED: 'RUNTIME_STATE_CRASHED',
} as const;

/**
 * A server's runtime state as the Agent observes it.
 */
export type RuntimeStateInput =
  /**
   * Never sent on purpose; means "not known".
   */
  | 'RUNTIME_STATE_UNSPECIFIED'
  | 0
  | 'RUNTIME_STATE_STOPPED'
  | 1
  | 'RUNTIME_STATE_STARTING'
  | 2
  | 'RUNTIME_STATE_RUNNING'
  | 3
  | 'RUNTIME_STATE_STOPPING'
  | 4
  | 'RUNTIME_STATE_CRASHED'
  | 5

/**
 * A server's runtime state as the Agent observes it.
 */
export type RuntimeState = typeof RuntimeState[keyof typeof RuntimeState]
