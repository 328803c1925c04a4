// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Moves an upload holding all of its `size` bytes into the server's root, replacing a file there
 * (a directory there is NOT_A_FILE), as the server's user; the disk limit is checked again. A
 * completed upload answers its state again without writing.
 */
export interface UploadCompleteInput {
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
 * Moves an upload holding all of its `size` bytes into the server's root, replacing a file there
 * (a directory there is NOT_A_FILE), as the server's user; the disk limit is checked again. A
 * completed upload answers its state again without writing.
 */
export interface UploadComplete {
  /**
   * The server.
   */
  'serverId': (string);
  /**
   * The upload.
   */
  'uploadId': (string);
}
