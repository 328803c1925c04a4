// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Reads a file; answered by Responses with FileChunk payloads, the last with eof set.
 */
export interface FileReadInput {
  /**
   * The server.
   */
  'serverId'?: (string);
  /**
   * File relative to the server's root.
   */
  'path'?: (string);
  /**
   * Largest chunk the Agent may send, at most 1 MiB.
   */
  'chunkBytes'?: (number);
  /**
   * Where to start reading, in bytes from the file's start (ranged reads let the Controller pace a
   * download to its client).
   */
  'offset'?: (number | string | Long);
  /**
   * How many bytes to read from `offset` at most; 0 reads to the end of the file.
   */
  'length'?: (number | string | Long);
}

/**
 * Reads a file; answered by Responses with FileChunk payloads, the last with eof set.
 */
export interface FileRead {
  /**
   * The server.
   */
  'serverId': (string);
  /**
   * File relative to the server's root.
   */
  'path': (string);
  /**
   * Largest chunk the Agent may send, at most 1 MiB.
   */
  'chunkBytes': (number);
  /**
   * Where to start reading, in bytes from the file's start (ranged reads let the Controller pace a
   * download to its client).
   */
  'offset': (number);
  /**
   * How many bytes to read from `offset` at most; 0 reads to the end of the file.
   */
  'length': (number);
}
