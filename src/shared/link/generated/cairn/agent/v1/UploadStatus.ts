// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Asks for an upload's state (NOT_FOUND when unknown or swept).
 */
export interface UploadStatusInput {
  /**
   * The server.
   */
  'serverId'?: (string);
  /**
   * The upload.
   */
  'uploadId'?: (string);
}

/**
 * Asks for an upload's state (NOT_FOUND when unknown or swept).
 */
export interface UploadStatus {
  /**
   * The server.
   */
  'serverId': (string);
  /**
   * The upload.
   */
  'uploadId': (string);
}
