// Original file: proto/cairn/agent/v1/agent.proto

/**
 * What the server should be doing.
 */
export const DesiredRuntimeState = {
  /**
   * Never sent on purpose.
   */
  DESIRED_RUNTIME_STATE_UNSPECIFIED: 'DESIRED_RUNTIME_STATE_UNSPECIFIED',
  /**
   * Installed and running; restarted on crash per the restart policy.
   */
  DESIRED_RUNTIME_STATE_RUNNING: 'DESIRED_RUNTIME_STATE_RUNNING',
  /**
   * Installed, not running.
   */
  DESIRED_RUNTIME_STATE_STOPPED: 'DESIRED_RUNTIME_STATE_STOPPED',
  /**
   * Stop it and remove everything of it from the Node.
   */
  DESIRED_RUNTIME_STATE_DELETED: 'DESIRED_RUNTIME_STATE_DELETED',
} as const;

/**
 * What the server should be doing.
 */
export type DesiredRuntimeStateInput =
  /**
   * Never sent on purpose.
   */
  | 'DESIRED_RUNTIME_STATE_UNSPECIFIED'
  | 0
  /**
   * Installed and running; restarted on crash per the restart policy.
   */
  | 'DESIRED_RUNTIME_STATE_RUNNING'
  | 1
  /**
   * Installed, not running.
   */
  | 'DESIRED_RUNTIME_STATE_STOPPED'
  | 2
  /**
   * Stop it and remove everything of it from the Node.
   */
  | 'DESIRED_RUNTIME_STATE_DELETED'
  | 3

/**
 * What the server should be doing.
 */
export type DesiredRuntimeState = typeof DesiredRuntimeState[keyof typeof DesiredRuntimeState]
