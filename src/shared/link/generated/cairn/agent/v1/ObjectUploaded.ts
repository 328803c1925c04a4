// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Answers SnapshotUpload.
 */
export interface ObjectUploadedInput {
  /**
   * Bytes sent (the encoded blob).
   */
  'storedBytes'?: (number | string | Long);
  /**
   * The ETag the store answered for each part, in order (a multipart upload's completion needs them).
   */
  'etags'?: (string)[];
}

/**
 * Answers SnapshotUpload.
 */
export interface ObjectUploaded {
  /**
   * Bytes sent (the encoded blob).
   */
  'storedBytes': (number);
  /**
   * The ETag the store answered for each part, in order (a multipart upload's completion needs them).
   */
  'etags': (string)[];
}
