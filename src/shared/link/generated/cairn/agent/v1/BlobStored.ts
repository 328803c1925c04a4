// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Answers PutBlob (and SnapshotPush).
 */
export interface BlobStoredInput {
  /**
   * Bytes the Controller's store added (0 when it had the blob already).
   */
  'storedBytes'?: (number | string | Long);
}

/**
 * Answers PutBlob (and SnapshotPush).
 */
export interface BlobStored {
  /**
   * Bytes the Controller's store added (0 when it had the blob already).
   */
  'storedBytes': (number);
}
