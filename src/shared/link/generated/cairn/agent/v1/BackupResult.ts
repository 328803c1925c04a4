// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

export interface BackupResultInput {
  /**
   * Bytes of all files of the backup.
   */
  'sizeBytes'?: (number | string | Long);
  /**
   * Bytes this backup added to the store (compressed blobs no earlier backup had).
   */
  'storedBytes'?: (number | string | Long);
  /**
   * Files in the backup.
   */
  'fileCount'?: (number);
}

export interface BackupResult {
  /**
   * Bytes of all files of the backup.
   */
  'sizeBytes': (number);
  /**
   * Bytes this backup added to the store (compressed blobs no earlier backup had).
   */
  'storedBytes': (number);
  /**
   * Files in the backup.
   */
  'fileCount': (number);
}
