// Original file: proto/cairn/agent/v1/agent.proto


/**
 * What SnapshotPush gave the Agent to present.
 */
export interface BlobGrantInput {
  'grantId'?: (string);
  /**
   * 32 random bytes; never logged by either side.
   */
  'key'?: (Buffer | Uint8Array | string);
}

/**
 * What SnapshotPush gave the Agent to present.
 */
export interface BlobGrant {
  'grantId': (string);
  /**
   * 32 random bytes; never logged by either side.
   */
  'key': (Buffer);
}
