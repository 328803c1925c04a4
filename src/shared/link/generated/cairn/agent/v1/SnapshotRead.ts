// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Reads one file of an open snapshot; answered like FileRead (FileChunk payloads, the last with eof).
 */
export interface SnapshotReadInput {
  /**
   * The snapshot.
   */
  'snapshotId'?: (string);
  /**
   * A FILE entry's path.
   */
  'path'?: (string);
  /**
   * Largest chunk the Agent may send, at most 1 MiB.
   */
  'chunkBytes'?: (number);
  /**
   * Where to start, in bytes.
   */
  'offset'?: (number | string | Long);
  /**
   * How many bytes to read from `offset` at most; 0 reads to the end of the file (ranged reads let
   * the Controller pace a copy to where it writes).
   */
  'length'?: (number | string | Long);
}

/**
 * Reads one file of an open snapshot; answered like FileRead (FileChunk payloads, the last with eof).
 */
export interface SnapshotRead {
  /**
   * The snapshot.
   */
  'snapshotId': (string);
  /**
   * A FILE entry's path.
   */
  'path': (string);
  /**
   * Largest chunk the Agent may send, at most 1 MiB.
   */
  'chunkBytes': (number);
  /**
   * Where to start, in bytes.
   */
  'offset': (number);
  /**
   * How many bytes to read from `offset` at most; 0 reads to the end of the file (ranged reads let
   * the Controller pace a copy to where it writes).
   */
  'length': (number);
}
