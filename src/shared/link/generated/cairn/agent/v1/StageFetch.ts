// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Writes one file into a stage from an object store (a destination of kind S3) with one presigned
 * GET: the stored blob is decoded and checked like StageWrite's last chunk (sha256 and size); a
 * mismatch fails CHECKSUM_MISMATCH and nothing of the file stays in the stage.
 */
export interface StageFetchInput {
  /**
   * The stage.
   */
  'stageId'?: (string);
  /**
   * The file's path in the stage; missing directories are created.
   */
  'path'?: (string);
  /**
   * The presigned GET of the blob.
   */
  'url'?: (string);
  /**
   * Hex sha256 of the file's content.
   */
  'sha256'?: (string);
  /**
   * The file's size.
   */
  'size'?: (number | string | Long);
  /**
   * Permission bits.
   */
  'mode'?: (number);
}

/**
 * Writes one file into a stage from an object store (a destination of kind S3) with one presigned
 * GET: the stored blob is decoded and checked like StageWrite's last chunk (sha256 and size); a
 * mismatch fails CHECKSUM_MISMATCH and nothing of the file stays in the stage.
 */
export interface StageFetch {
  /**
   * The stage.
   */
  'stageId': (string);
  /**
   * The file's path in the stage; missing directories are created.
   */
  'path': (string);
  /**
   * The presigned GET of the blob.
   */
  'url': (string);
  /**
   * Hex sha256 of the file's content.
   */
  'sha256': (string);
  /**
   * The file's size.
   */
  'size': (number);
  /**
   * Permission bits.
   */
  'mode': (number);
}
