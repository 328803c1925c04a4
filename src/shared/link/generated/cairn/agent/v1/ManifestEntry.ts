// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * One file or directory of a snapshot, a stage or a backup's manifest.
 */
export interface ManifestEntryInput {
  /**
   * Relative to the server's root, "/"-separated, never "." or "..", never inside `.cairn`.
   */
  'path'?: (string);
  /**
   * "FILE" or "DIRECTORY".
   */
  'type'?: (string);
  /**
   * Bytes (0 for directories).
   */
  'size'?: (number | string | Long);
  /**
   * Permission bits (e.g. 0644).
   */
  'mode'?: (number);
  /**
   * Hex sha256 of a file's content; empty for directories.
   */
  'sha256'?: (string);
}

/**
 * One file or directory of a snapshot, a stage or a backup's manifest.
 */
export interface ManifestEntry {
  /**
   * Relative to the server's root, "/"-separated, never "." or "..", never inside `.cairn`.
   */
  'path': (string);
  /**
   * "FILE" or "DIRECTORY".
   */
  'type': (string);
  /**
   * Bytes (0 for directories).
   */
  'size': (number);
  /**
   * Permission bits (e.g. 0644).
   */
  'mode': (number);
  /**
   * Hex sha256 of a file's content; empty for directories.
   */
  'sha256': (string);
}
