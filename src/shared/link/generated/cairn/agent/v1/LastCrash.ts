// Original file: proto/cairn/agent/v1/agent.proto

import type { ConsoleLineInput as _cairn_agent_v1_ConsoleLineInput, ConsoleLine as _cairn_agent_v1_ConsoleLine } from '../../../cairn/agent/v1/ConsoleLine.js';

/**
 * A crash as the Agent keeps it, in memory only: how the process ended and what it printed last.
 * The Controller shows it and never stores it (console lines may name players and addresses).
 */
export interface LastCrashInput {
  /**
   * When the Agent saw the process end (ISO 8601).
   */
  'at'?: (string);
  /**
   * The process's exit code; meaningful only when has_exit_code is true.
   */
  'exitCode'?: (number);
  /**
   * True when the process exited with a code (false when a signal ended it or it never ran).
   */
  'hasExitCode'?: (boolean);
  /**
   * The signal that ended the process (e.g. "SIGSEGV"); empty when none did.
   */
  'signal'?: (string);
  /**
   * The last console lines before the end (at most 20), oldest first, each with the time it was printed.
   */
  'lastLines'?: (_cairn_agent_v1_ConsoleLineInput)[];
  /**
   * Why, when the Agent knows more than the exit: "OOM_KILLED" (the kernel ended the game at its
   * memory limit). Empty otherwise.
   */
  'reason'?: (string);
  /**
   * Automatic restarts after crashes since the last start the Controller asked for (a start, a
   * restart or a change that restarts, an acknowledged crash loop).
   */
  'restarts'?: (number);
}

/**
 * A crash as the Agent keeps it, in memory only: how the process ended and what it printed last.
 * The Controller shows it and never stores it (console lines may name players and addresses).
 */
export interface LastCrash {
  /**
   * When the Agent saw the process end (ISO 8601).
   */
  'at': (string);
  /**
   * The process's exit code; meaningful only when has_exit_code is true.
   */
  'exitCode': (number);
  /**
   * True when the process exited with a code (false when a signal ended it or it never ran).
   */
  'hasExitCode': (boolean);
  /**
   * The signal that ended the process (e.g. "SIGSEGV"); empty when none did.
   */
  'signal': (string);
  /**
   * The last console lines before the end (at most 20), oldest first, each with the time it was printed.
   */
  'lastLines': (_cairn_agent_v1_ConsoleLine)[];
  /**
   * Why, when the Agent knows more than the exit: "OOM_KILLED" (the kernel ended the game at its
   * memory limit). Empty otherwise.
   */
  'reason': (string);
  /**
   * Automatic restarts after crashes since the last start the Controller asked for (a start, a
   * restart or a change that restarts, an acknowledged crash loop).
   */
  'restarts': (number);
}
