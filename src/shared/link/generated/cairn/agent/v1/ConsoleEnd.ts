// Original file: proto/cairn/agent/v1/agent.proto


/**
 * The end of a server's console: the Agent's last message of a console subscription.
 */
export interface ConsoleEndInput {
  /**
   * The server whose console ended.
   */
  'serverId'?: (string);
  /**
   * Why: "stopped" (asked to stop, or exited 0 by itself), "crashed" (non-zero exit, signal or
   * failed spawn), "killed" (killed on request), "lost" (the supervisor went away).
   */
  'reason'?: (string);
  /**
   * The process's exit code; meaningful only when has_exit_code is true.
   */
  'exitCode'?: (number);
  /**
   * True when the process exited with a code (false when a signal ended it or it never ran).
   */
  'hasExitCode'?: (boolean);
  /**
   * The signal that ended the process (e.g. "SIGKILL"); empty when none did.
   */
  'signal'?: (string);
}

/**
 * The end of a server's console: the Agent's last message of a console subscription.
 */
export interface ConsoleEnd {
  /**
   * The server whose console ended.
   */
  'serverId': (string);
  /**
   * Why: "stopped" (asked to stop, or exited 0 by itself), "crashed" (non-zero exit, signal or
   * failed spawn), "killed" (killed on request), "lost" (the supervisor went away).
   */
  'reason': (string);
  /**
   * The process's exit code; meaningful only when has_exit_code is true.
   */
  'exitCode': (number);
  /**
   * True when the process exited with a code (false when a signal ended it or it never ran).
   */
  'hasExitCode': (boolean);
  /**
   * The signal that ended the process (e.g. "SIGKILL"); empty when none did.
   */
  'signal': (string);
}
