// Original file: proto/cairn/agent/v1/agent.proto

import type { PullFileInput as _cairn_agent_v1_PullFileInput, PullFile as _cairn_agent_v1_PullFile } from '../../../cairn/agent/v1/PullFile.js';

/**
 * Fills files of a stage straight from another Agent's snapshot (SnapshotServe), a few
 * connections at once. Every file is checked like StageWrite's last chunk: against the manifest's
 * sha256 and size when `expect_manifest`, otherwise against the sha256 the serving Agent computed
 * of the bytes it sent (a file of a running server may change while it is read). Fails
 * PEER_UNREACHABLE when no connection to the peer could be made within `connect_timeout_ms` or one
 * broke off (nothing of an unfinished file stays in the stage), CHECKSUM_MISMATCH as StageWrite.
 * Answered with StagePulled.
 */
export interface StagePullInput {
  /**
   * The stage.
   */
  'stageId'?: (string);
  /**
   * Where the serving Agent is reached: host name or address, and port.
   */
  'host'?: (string);
  'port'?: (number);
  /**
   * The grant, as SnapshotServe gave it to the serving Agent.
   */
  'grantId'?: (string);
  'key'?: (Buffer | Uint8Array | string);
  /**
   * The files, in any order; their directories are created.
   */
  'files'?: (_cairn_agent_v1_PullFileInput)[];
  /**
   * Whether each file must match the manifest (the last copy of a stopped server).
   */
  'expectManifest'?: (boolean);
  /**
   * How long a connection to the peer may take to open.
   */
  'connectTimeoutMs'?: (number);
}

/**
 * Fills files of a stage straight from another Agent's snapshot (SnapshotServe), a few
 * connections at once. Every file is checked like StageWrite's last chunk: against the manifest's
 * sha256 and size when `expect_manifest`, otherwise against the sha256 the serving Agent computed
 * of the bytes it sent (a file of a running server may change while it is read). Fails
 * PEER_UNREACHABLE when no connection to the peer could be made within `connect_timeout_ms` or one
 * broke off (nothing of an unfinished file stays in the stage), CHECKSUM_MISMATCH as StageWrite.
 * Answered with StagePulled.
 */
export interface StagePull {
  /**
   * The stage.
   */
  'stageId': (string);
  /**
   * Where the serving Agent is reached: host name or address, and port.
   */
  'host': (string);
  'port': (number);
  /**
   * The grant, as SnapshotServe gave it to the serving Agent.
   */
  'grantId': (string);
  'key': (Buffer);
  /**
   * The files, in any order; their directories are created.
   */
  'files': (_cairn_agent_v1_PullFile)[];
  /**
   * Whether each file must match the manifest (the last copy of a stopped server).
   */
  'expectManifest': (boolean);
  /**
   * How long a connection to the peer may take to open.
   */
  'connectTimeoutMs': (number);
}
