// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Gives an upload up: its partial file and record are removed (unknown ids are fine).
 */
export interface UploadCancelInput {
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
 * Gives an upload up: its partial file and record are removed (unknown ids are fine).
 */
export interface UploadCancel {
  /**
   * The server.
   */
  'serverId': (string);
  /**
   * The upload.
   */
  'uploadId': (string);
}
