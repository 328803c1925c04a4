// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

export interface ArtifactChunkInput {
  /**
   * The next bytes of the artifact, in order.
   */
  'data'?: (Buffer | Uint8Array | string);
  /**
   * The artifact's whole size in bytes (the same in every chunk).
   */
  'totalBytes'?: (number | string | Long);
}

export interface ArtifactChunk {
  /**
   * The next bytes of the artifact, in order.
   */
  'data': (Buffer);
  /**
   * The artifact's whole size in bytes (the same in every chunk).
   */
  'totalBytes': (number);
}
