// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * An upload as the Agent holds it.
 */
export interface UploadStateInput {
  /**
   * The upload.
   */
  'uploadId'?: (string);
  /**
   * The file, relative to the server's root.
   */
  'path'?: (string);
  /**
   * The file's size in bytes.
   */
  'size'?: (number | string | Long);
  /**
   * Bytes the Agent holds durably (fsynced).
   */
  'offset'?: (number | string | Long);
  /**
   * When it began (ms since the Unix epoch).
   */
  'createdUnixMs'?: (number | string | Long);
  /**
   * When it was last written (ms since the Unix epoch); swept 24 h after.
   */
  'touchedUnixMs'?: (number | string | Long);
  /**
   * True once the file was moved into the server's root.
   */
  'completed'?: (boolean);
}

/**
 * An upload as the Agent holds it.
 */
export interface UploadState {
  /**
   * The upload.
   */
  'uploadId': (string);
  /**
   * The file, relative to the server's root.
   */
  'path': (string);
  /**
   * The file's size in bytes.
   */
  'size': (number);
  /**
   * Bytes the Agent holds durably (fsynced).
   */
  'offset': (number);
  /**
   * When it began (ms since the Unix epoch).
   */
  'createdUnixMs': (number);
  /**
   * When it was last written (ms since the Unix epoch); swept 24 h after.
   */
  'touchedUnixMs': (number);
  /**
   * True once the file was moved into the server's root.
   */
  'completed': (boolean);
}
