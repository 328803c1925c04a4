// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

export interface FileEntryInput {
  /**
   * The entry's name.
   */
  'name'?: (string);
  /**
   * Path relative to the server's root.
   */
  'path'?: (string);
  /**
   * "FILE" or "DIRECTORY".
   */
  'type'?: (string);
  /**
   * Size in bytes (0 for directories).
   */
  'sizeBytes'?: (number | string | Long);
  /**
   * Last modification (ISO 8601).
   */
  'modifiedAt'?: (string);
}

export interface FileEntry {
  /**
   * The entry's name.
   */
  'name': (string);
  /**
   * Path relative to the server's root.
   */
  'path': (string);
  /**
   * "FILE" or "DIRECTORY".
   */
  'type': (string);
  /**
   * Size in bytes (0 for directories).
   */
  'sizeBytes': (number);
  /**
   * Last modification (ISO 8601).
   */
  'modifiedAt': (string);
}
