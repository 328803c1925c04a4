// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Writes one chunk of one file into a stage; chunks of one file arrive in order from offset 0.
 */
export interface StageWriteInput {
  /**
   * The stage.
   */
  'stageId'?: (string);
  /**
   * The file's path in the stage; missing directories are created.
   */
  'path'?: (string);
  /**
   * Byte offset of this chunk.
   */
  'offset'?: (number | string | Long);
  /**
   * At most 1 MiB.
   */
  'data'?: (Buffer | Uint8Array | string);
  /**
   * True on the file's last chunk: the Agent then checks `sha256` and `size` and sets `mode`;
   * a mismatch fails the request (CHECKSUM_MISMATCH) and the file is dropped from the stage.
   */
  'last'?: (boolean);
  /**
   * Hex sha256 of the whole file (on the last chunk).
   */
  'sha256'?: (string);
  /**
   * Permission bits (on the last chunk).
   */
  'mode'?: (number);
  /**
   * The whole file's size (on the last chunk).
   */
  'size'?: (number | string | Long);
  /**
   * True to create `path` as a directory (with `mode`) instead of writing a file: a backup's empty
   * directories come back too. `data`, `offset`, `last`, `sha256` and `size` are ignored.
   */
  'directory'?: (boolean);
}

/**
 * Writes one chunk of one file into a stage; chunks of one file arrive in order from offset 0.
 */
export interface StageWrite {
  /**
   * The stage.
   */
  'stageId': (string);
  /**
   * The file's path in the stage; missing directories are created.
   */
  'path': (string);
  /**
   * Byte offset of this chunk.
   */
  'offset': (number);
  /**
   * At most 1 MiB.
   */
  'data': (Buffer);
  /**
   * True on the file's last chunk: the Agent then checks `sha256` and `size` and sets `mode`;
   * a mismatch fails the request (CHECKSUM_MISMATCH) and the file is dropped from the stage.
   */
  'last': (boolean);
  /**
   * Hex sha256 of the whole file (on the last chunk).
   */
  'sha256': (string);
  /**
   * Permission bits (on the last chunk).
   */
  'mode': (number);
  /**
   * The whole file's size (on the last chunk).
   */
  'size': (number);
  /**
   * True to create `path` as a directory (with `mode`) instead of writing a file: a backup's empty
   * directories come back too. `data`, `offset`, `last`, `sha256` and `size` are ignored.
   */
  'directory': (boolean);
}
