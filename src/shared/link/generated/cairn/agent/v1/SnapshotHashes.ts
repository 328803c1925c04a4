// Original file: proto/cairn/agent/v1/agent.proto

import type { FileHashInput as _cairn_agent_v1_FileHashInput, FileHash as _cairn_agent_v1_FileHash } from '../../../cairn/agent/v1/FileHash.js';

/**
 * The sha256 of files the Controller read whole from the snapshot under an unhashed grant
 * (SnapshotServe), for the Agent's next scan: it keeps each for a file that did not change while
 * it was sent, and ignores the others. Answered empty; sent in parts of at most 1,000 files.
 */
export interface SnapshotHashesInput {
  /**
   * The snapshot.
   */
  'snapshotId'?: (string);
  /**
   * The files and their hashes.
   */
  'files'?: (_cairn_agent_v1_FileHashInput)[];
}

/**
 * The sha256 of files the Controller read whole from the snapshot under an unhashed grant
 * (SnapshotServe), for the Agent's next scan: it keeps each for a file that did not change while
 * it was sent, and ignores the others. Answered empty; sent in parts of at most 1,000 files.
 */
export interface SnapshotHashes {
  /**
   * The snapshot.
   */
  'snapshotId': (string);
  /**
   * The files and their hashes.
   */
  'files': (_cairn_agent_v1_FileHash)[];
}
