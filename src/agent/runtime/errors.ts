export type RuntimeErrorCode =
  /** The server has no live game (never started, or exited). */
  | 'not_running'
  /** A shim already serves this server. */
  | 'already_running'
  /** A new shim refused to start: another shim serves the server's state dir. */
  | 'shim_busy'
  /** The shim did not come up, or could not be reached. */
  | 'shim_unavailable'
  /** The shim did not answer within the deadline. */
  | 'timeout'
  /** The shim refused the request, or sent something that breaks the protocol. */
  | 'protocol'
  | 'invalid_server_id';

/** Every failure of the process runtime, with a code the Agent maps to its reports. */
export class RuntimeError extends Error {
  override readonly name = 'RuntimeError';
  constructor(
    readonly code: RuntimeErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isRuntimeError(error: unknown, code?: RuntimeErrorCode): error is RuntimeError {
  return error instanceof RuntimeError && (code === undefined || error.code === code);
}
