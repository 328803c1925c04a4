// Original file: proto/cairn/agent/v1/agent.proto

import type { BlobGrantInput as _cairn_agent_v1_BlobGrantInput, BlobGrant as _cairn_agent_v1_BlobGrant } from '../../../cairn/agent/v1/BlobGrant.js';

/**
 * One message of PutBlob: the grant in the first, the file's next bytes in every later one.
 */
export interface BlobPieceInput {
  'grant'?: (_cairn_agent_v1_BlobGrantInput | null);
  'data'?: (Buffer | Uint8Array | string);
  'piece'?: "grant"|"data";
}

/**
 * One message of PutBlob: the grant in the first, the file's next bytes in every later one.
 */
export interface BlobPiece {
  'grant'?: (_cairn_agent_v1_BlobGrant | null);
  'data'?: (Buffer);
  'piece'?: "grant"|"data";
}
