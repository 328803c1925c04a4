// Original file: proto/cairn/agent/v1/agent.proto


export interface ResponseErrorInput {
  /**
   * Machine-readable: NOT_FOUND, INVALID_PATH, READ_ONLY, SERVER_NOT_RUNNING, NOT_A_DIRECTORY,
   * ALREADY_EXISTS, TOO_LARGE, UNSUPPORTED, INTERNAL; also NOT_A_FILE (a read of a directory),
   * INVALID_REQUEST (e.g. a command that is not one line), MANAGED_PROPERTY (a key Cairn owns),
   * INVALID_PROPERTIES (server.properties cannot be parsed); for snapshots and stages also
   * SERVER_RUNNING (a commit while the server runs here), CHECKSUM_MISMATCH (a file's content is not
   * what its sha256 says; for PrefetchArtifact, bytes that are not the artifact), QUIESCE_FAILED (the template's quiesce did not finish before its deadline);
   * for SnapshotUpload and StageFetch also OBJECT_STORE (the object store refused a presigned
   * request or could not be reached; the message gives its status and error code, never the URL);
   * for StagePull also PEER_UNREACHABLE (the serving Agent could not be reached, or broke off);
   * for PrefetchArtifact also UNAVAILABLE (the artifact could not be fetched; the message says why);
   * for FileArchiveJob also INVALID_ARCHIVE (not a readable archive) and DISK_QUOTA_EXCEEDED;
   * for uploads also UPLOAD_OFFSET_MISMATCH (bytes not at the upload's offset), DISK_QUOTA_EXCEEDED and NO_SPACE.
   */
  'code'?: (string);
  /**
   * Human-readable explanation, never file content or secrets.
   */
  'message'?: (string);
}

export interface ResponseError {
  /**
   * Machine-readable: NOT_FOUND, INVALID_PATH, READ_ONLY, SERVER_NOT_RUNNING, NOT_A_DIRECTORY,
   * ALREADY_EXISTS, TOO_LARGE, UNSUPPORTED, INTERNAL; also NOT_A_FILE (a read of a directory),
   * INVALID_REQUEST (e.g. a command that is not one line), MANAGED_PROPERTY (a key Cairn owns),
   * INVALID_PROPERTIES (server.properties cannot be parsed); for snapshots and stages also
   * SERVER_RUNNING (a commit while the server runs here), CHECKSUM_MISMATCH (a file's content is not
   * what its sha256 says; for PrefetchArtifact, bytes that are not the artifact), QUIESCE_FAILED (the template's quiesce did not finish before its deadline);
   * for SnapshotUpload and StageFetch also OBJECT_STORE (the object store refused a presigned
   * request or could not be reached; the message gives its status and error code, never the URL);
   * for StagePull also PEER_UNREACHABLE (the serving Agent could not be reached, or broke off);
   * for PrefetchArtifact also UNAVAILABLE (the artifact could not be fetched; the message says why);
   * for FileArchiveJob also INVALID_ARCHIVE (not a readable archive) and DISK_QUOTA_EXCEEDED;
   * for uploads also UPLOAD_OFFSET_MISMATCH (bytes not at the upload's offset), DISK_QUOTA_EXCEEDED and NO_SPACE.
   */
  'code': (string);
  /**
   * Human-readable explanation, never file content or secrets.
   */
  'message': (string);
}
