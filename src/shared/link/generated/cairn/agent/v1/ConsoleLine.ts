// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

export interface ConsoleLineInput {
  /**
   * The server whose console printed the line.
   */
  'serverId'?: (string);
  /**
   * The line without its line break, cut at 16 KiB.
   */
  'text'?: (string);
  /**
   * When the line was printed (read by the server's supervisor), in milliseconds since the Unix epoch.
   */
  'atUnixMs'?: (number | string | Long);
  /**
   * True when the line was longer than 16 KiB and `text` is its cut beginning.
   */
  'truncated'?: (boolean);
  /**
   * The line's number in the process's output (from 0 at each start); orders replayed lines
   * against live ones so the Controller drops duplicates.
   */
  'seq'?: (number | string | Long);
}

export interface ConsoleLine {
  /**
   * The server whose console printed the line.
   */
  'serverId': (string);
  /**
   * The line without its line break, cut at 16 KiB.
   */
  'text': (string);
  /**
   * When the line was printed (read by the server's supervisor), in milliseconds since the Unix epoch.
   */
  'atUnixMs': (number);
  /**
   * True when the line was longer than 16 KiB and `text` is its cut beginning.
   */
  'truncated': (boolean);
  /**
   * The line's number in the process's output (from 0 at each start); orders replayed lines
   * against live ones so the Controller drops duplicates.
   */
  'seq': (number);
}
