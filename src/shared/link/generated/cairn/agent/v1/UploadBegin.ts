// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Resumable uploads: a file of any size written across many requests (and Agent or Controller
 * restarts) into a partial file OUTSIDE the server's root, under the Agent's data dir beside it,
 * with a small record of its path, size and times; UploadComplete moves it into the root by the
 * files API's walk. Each answers with the upload's UploadState. An upload untouched for 24 h is
 * swept. The id is the Controller's (a UUID), unique across servers.
 */
export interface UploadBeginInput {
  /**
   * The server.
   */
  'serverId'?: (string);
  /**
   * Chosen by the Controller.
   */
  'uploadId'?: (string);
  /**
   * The file to write, relative to the server's root; checked as a write's (its directory must
   * exist, it must not be a directory, `.cairn` and the forwarding secret's file are refused).
   */
  'path'?: (string);
  /**
   * The file's size in bytes; refused with DISK_QUOTA_EXCEEDED past the disk limit's room, or
   * NO_SPACE past the disk's free space.
   */
  'size'?: (number | string | Long);
}

/**
 * Resumable uploads: a file of any size written across many requests (and Agent or Controller
 * restarts) into a partial file OUTSIDE the server's root, under the Agent's data dir beside it,
 * with a small record of its path, size and times; UploadComplete moves it into the root by the
 * files API's walk. Each answers with the upload's UploadState. An upload untouched for 24 h is
 * swept. The id is the Controller's (a UUID), unique across servers.
 */
export interface UploadBegin {
  /**
   * The server.
   */
  'serverId': (string);
  /**
   * Chosen by the Controller.
   */
  'uploadId': (string);
  /**
   * The file to write, relative to the server's root; checked as a write's (its directory must
   * exist, it must not be a directory, `.cairn` and the forwarding secret's file are refused).
   */
  'path': (string);
  /**
   * The file's size in bytes; refused with DISK_QUOTA_EXCEEDED past the disk limit's room, or
   * NO_SPACE past the disk's free space.
   */
  'size': (number);
}
