// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Makes sure the Node's download cache holds a server artifact (fetched with FetchArtifact and
 * checked like an install's: size, then sha256 or sha1), so a later StageCommit or start installs
 * it without fetching. An update asks this before it stops the server: a slow or failing download
 * then costs no downtime. Answered once the verified artifact is in the cache; a download that
 * fails fails the request (UNAVAILABLE, or CHECKSUM_MISMATCH for bytes that are not the artifact),
 * the message saying why.
 */
export interface PrefetchArtifactInput {
  /**
   * Lower-case hex SHA-256 of the artifact's bytes; empty when only its SHA-1 is known.
   */
  'sha256'?: (string);
  /**
   * Lower-case hex SHA-1 of the artifact's bytes, used when `sha256` is empty.
   */
  'sha1'?: (string);
  /**
   * The artifact's size in bytes; 0 when the upstream lists none.
   */
  'size'?: (number | string | Long);
}

/**
 * Makes sure the Node's download cache holds a server artifact (fetched with FetchArtifact and
 * checked like an install's: size, then sha256 or sha1), so a later StageCommit or start installs
 * it without fetching. An update asks this before it stops the server: a slow or failing download
 * then costs no downtime. Answered once the verified artifact is in the cache; a download that
 * fails fails the request (UNAVAILABLE, or CHECKSUM_MISMATCH for bytes that are not the artifact),
 * the message saying why.
 */
export interface PrefetchArtifact {
  /**
   * Lower-case hex SHA-256 of the artifact's bytes; empty when only its SHA-1 is known.
   */
  'sha256': (string);
  /**
   * Lower-case hex SHA-1 of the artifact's bytes, used when `sha256` is empty.
   */
  'sha1': (string);
  /**
   * The artifact's size in bytes; 0 when the upstream lists none.
   */
  'size': (number);
}
