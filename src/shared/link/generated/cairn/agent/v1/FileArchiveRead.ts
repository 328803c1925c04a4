// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Reads a directory as a zip made on the fly, in ranges: the first request with a new
 * `stream_id` starts it, each answers with FileChunk parts of at most `max_bytes` in all (the
 * last with eof when the zip is complete), so the Controller asks for more only as its client
 * reads. A stream not asked for 60 s is given up.
 */
export interface FileArchiveReadInput {
  /**
   * The server.
   */
  'serverId'?: (string);
  /**
   * The directory, relative to the root.
   */
  'path'?: (string);
  /**
   * Chosen by the Controller; names one zip across its requests.
   */
  'streamId'?: (string);
  /**
   * How many bytes this answer may carry at most.
   */
  'maxBytes'?: (number | string | Long);
  /**
   * True to give the stream up (its client went away).
   */
  'abort'?: (boolean);
}

/**
 * Reads a directory as a zip made on the fly, in ranges: the first request with a new
 * `stream_id` starts it, each answers with FileChunk parts of at most `max_bytes` in all (the
 * last with eof when the zip is complete), so the Controller asks for more only as its client
 * reads. A stream not asked for 60 s is given up.
 */
export interface FileArchiveRead {
  /**
   * The server.
   */
  'serverId': (string);
  /**
   * The directory, relative to the root.
   */
  'path': (string);
  /**
   * Chosen by the Controller; names one zip across its requests.
   */
  'streamId': (string);
  /**
   * How many bytes this answer may carry at most.
   */
  'maxBytes': (number);
  /**
   * True to give the stream up (its client went away).
   */
  'abort': (boolean);
}
