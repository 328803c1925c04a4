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
}
