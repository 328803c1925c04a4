// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Progress of a FileArchiveJob.
 */
export interface ArchiveProgressInput {
  /**
   * Bytes written so far.
   */
  'bytes'?: (number | string | Long);
  /**
   * Paths (from the root) put in place since the previous part, in order.
   */
  'written'?: (string)[];
  /**
   * Entries put in place so far.
   */
  'entries'?: (number | string | Long);
}

/**
 * Progress of a FileArchiveJob.
 */
export interface ArchiveProgress {
  /**
   * Bytes written so far.
   */
  'bytes': (number);
  /**
   * Paths (from the root) put in place since the previous part, in order.
   */
  'written': (string)[];
  /**
   * Entries put in place so far.
   */
  'entries': (number);
}
