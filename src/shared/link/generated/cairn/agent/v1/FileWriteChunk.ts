// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Writes a file in chunks of at most 1 MiB; each chunk is its own Request with its own id.
 */
export interface FileWriteChunkInput {
  /**
   * The server.
   */
  'serverId'?: (string);
  /**
   * File relative to the server's root; its directory must exist.
   */
  'path'?: (string);
  /**
   * Identifies one whole upload across its chunks; the file appears only after the last chunk.
   */
  'uploadId'?: (string);
  /**
   * Byte offset of this chunk in the file.
   */
  'offset'?: (number | string | Long);
  /**
   * The bytes, at most 1 MiB.
   */
  'data'?: (Buffer | Uint8Array | string);
  /**
   * True on the final chunk: the Agent then moves the file into place.
   */
  'last'?: (boolean);
  /**
   * True to give up the upload (the client went away or sent too much): the Agent removes the
   * partly written temporary file; `data` and `last` are ignored.
   */
  'abort'?: (boolean);
  /**
   * The most bytes the file may hold; 0 means the files API's 64 MiB (what an older Controller
   * meant). SFTP writes send a larger bound; the server's disk limit applies whatever it is.
   */
  'maxBytes'?: (number | string | Long);
}

/**
 * Writes a file in chunks of at most 1 MiB; each chunk is its own Request with its own id.
 */
export interface FileWriteChunk {
  /**
   * The server.
   */
  'serverId': (string);
  /**
   * File relative to the server's root; its directory must exist.
   */
  'path': (string);
  /**
   * Identifies one whole upload across its chunks; the file appears only after the last chunk.
   */
  'uploadId': (string);
  /**
   * Byte offset of this chunk in the file.
   */
  'offset': (number);
  /**
   * The bytes, at most 1 MiB.
   */
  'data': (Buffer);
  /**
   * True on the final chunk: the Agent then moves the file into place.
   */
  'last': (boolean);
  /**
   * True to give up the upload (the client went away or sent too much): the Agent removes the
   * partly written temporary file; `data` and `last` are ignored.
   */
  'abort': (boolean);
  /**
   * The most bytes the file may hold; 0 means the files API's 64 MiB (what an older Controller
   * meant). SFTP writes send a larger bound; the server's disk limit applies whatever it is.
   */
  'maxBytes': (number);
}
