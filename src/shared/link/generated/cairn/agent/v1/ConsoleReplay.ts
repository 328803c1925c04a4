// Original file: proto/cairn/agent/v1/agent.proto

import type { ConsoleLineInput as _cairn_agent_v1_ConsoleLineInput, ConsoleLine as _cairn_agent_v1_ConsoleLine } from '../../../cairn/agent/v1/ConsoleLine.js';

export interface ConsoleReplayInput {
  /**
   * The last lines, oldest first.
   */
  'lines'?: (string)[];
  /**
   * The same lines with their sequence numbers and truncation flags, oldest first.
   */
  'entries'?: (_cairn_agent_v1_ConsoleLineInput)[];
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
}
