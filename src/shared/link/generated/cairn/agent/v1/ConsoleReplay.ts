// Original file: proto/cairn/agent/v1/agent.proto

import type { ConsoleLineInput as _cairn_agent_v1_ConsoleLineInput, ConsoleLine as _cairn_agent_v1_ConsoleLine } from '../../../cairn/agent/v1/ConsoleLine.js';
import type { ConsoleEndInput as _cairn_agent_v1_ConsoleEndInput, ConsoleEnd as _cairn_agent_v1_ConsoleEnd } from '../../../cairn/agent/v1/ConsoleEnd.js';

export interface ConsoleReplayInput {
  /**
   * The last lines, oldest first.
   */
  'lines'?: (string)[];
  /**
   * The same lines with their sequence numbers and truncation flags, oldest first.
   */
  'entries'?: (_cairn_agent_v1_ConsoleLineInput)[];
  /**
   * Set when the server's process is not running: the lines are the end of its last run, which the
   * Agent keeps after the exit, no subscription was made and no live line follows.
   */
  'end'?: (_cairn_agent_v1_ConsoleEndInput | null);
}

export interface ConsoleReplay {
  /**
   * The last lines, oldest first.
   */
  'lines': (string)[];
  /**
   * The same lines with their sequence numbers and truncation flags, oldest first.
   */
  'entries': (_cairn_agent_v1_ConsoleLine)[];
  /**
   * Set when the server's process is not running: the lines are the end of its last run, which the
   * Agent keeps after the exit, no subscription was made and no live line follows.
   */
  'end': (_cairn_agent_v1_ConsoleEnd | null);
}
