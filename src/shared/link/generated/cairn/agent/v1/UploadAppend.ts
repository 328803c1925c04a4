// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Appends bytes at `offset`, which must be the upload's offset (else UPLOAD_OFFSET_MISMATCH). At
 * most 1 MiB; empty data only checks the offset. Bytes past `size` are refused with TOO_LARGE.
 */
export interface UploadAppendInput {
  /**
   * The server.
   */
  'serverId'?: (string);
  /**
   * The upload.
   */
  'uploadId'?: (string);
  /**
   * Where the bytes go, in bytes from the file's start.
   */
  'offset'?: (number | string | Long);
  /**
   * The bytes, at most 1 MiB.
   */
  'data'?: (Buffer | Uint8Array | string);
}

/**
 * Appends bytes at `offset`, which must be the upload's offset (else UPLOAD_OFFSET_MISMATCH). At
 * most 1 MiB; empty data only checks the offset. Bytes past `size` are refused with TOO_LARGE.
 */
export interface UploadAppend {
  /**
   * The server.
   */
  'serverId': (string);
  /**
   * The upload.
   */
  'uploadId': (string);
  /**
   * Where the bytes go, in bytes from the file's start.
   */
  'offset': (number);
  /**
   * The bytes, at most 1 MiB.
   */
  'data': (Buffer);
}
