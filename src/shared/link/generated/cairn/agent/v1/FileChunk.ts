// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

export interface FileChunkInput {
  /**
   * Byte offset of this chunk in the file.
   */
  'offset'?: (number | string | Long);
  /**
   * The bytes, at most 1 MiB.
   */
  'data'?: (Buffer | Uint8Array | string);
  /**
   * True on the last chunk.
   */
  'eof'?: (boolean);
  /**
   * The whole file's size in bytes (in every chunk, so a reader can refuse early).
   */
  'totalBytes'?: (number | string | Long);
}

export interface FileChunk {
  /**
   * Byte offset of this chunk in the file.
   */
  'offset': (number);
  /**
   * The bytes, at most 1 MiB.
   */
  'data': (Buffer);
  /**
   * True on the last chunk.
   */
  'eof': (boolean);
  /**
   * The whole file's size in bytes (in every chunk, so a reader can refuse early).
   */
  'totalBytes': (number);
}
