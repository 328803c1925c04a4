// Original file: proto/cairn/agent/v1/agent.proto

import type { BlobGrantInput as _cairn_agent_v1_BlobGrantInput, BlobGrant as _cairn_agent_v1_BlobGrant } from '../../../cairn/agent/v1/BlobGrant.js';

/**
 * Streams one FILE of an open snapshot, as it is, to the Controller this link is connected to, in
 * one PutBlob call presenting the grant; answered BlobStored with what the Controller answered.
 * An Agent that predates it answers UNSUPPORTED, and the Controller reads the file over the link.
 */
export interface SnapshotPushInput {
  'snapshotId'?: (string);
  /**
   * A FILE entry's path.
   */
  'path'?: (string);
  /**
   * Good for this one blob, once, for the request's deadline.
   */
  'grant'?: (_cairn_agent_v1_BlobGrantInput | null);
}

/**
 * Streams one FILE of an open snapshot, as it is, to the Controller this link is connected to, in
 * one PutBlob call presenting the grant; answered BlobStored with what the Controller answered.
 * An Agent that predates it answers UNSUPPORTED, and the Controller reads the file over the link.
 */
export interface SnapshotPush {
  'snapshotId': (string);
  /**
   * A FILE entry's path.
   */
  'path': (string);
  /**
   * Good for this one blob, once, for the request's deadline.
   */
  'grant': (_cairn_agent_v1_BlobGrant | null);
}
