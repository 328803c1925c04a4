// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Uploads one file of an open snapshot as a stored blob (the encoding of the Node's own stores)
 * straight to an object store (a destination of kind S3), with requests the Controller presigned:
 * the Agent never holds the store's credentials, and each URL names one object (or one part of
 * it) for a short time. The encoded blob is cut into parts of `part_bytes`, each sent with one PUT
 * to the URL of its place (retried on a network error or a 5xx); the last part goes only once the
 * whole file was read and its sha256 matched, so a file that does not match leaves no object (a
 * multipart upload is completed, or aborted, by the Controller). Answered with ObjectUploaded.
 */
export interface SnapshotUploadInput {
  /**
   * The snapshot.
   */
  'snapshotId'?: (string);
  /**
   * A FILE entry's path.
   */
  'path'?: (string);
  /**
   * The file's sha256 as the snapshot's manifest gives it: other content fails CHECKSUM_MISMATCH.
   */
  'sha256'?: (string);
  /**
   * Every part but the last is this long.
   */
  'partBytes'?: (number | string | Long);
  /**
   * One presigned PUT per part, in order; one URL uploads the whole object in one request. An
   * encoded blob needing more parts than URLs fails TOO_LARGE.
   */
  'partUrls'?: (string)[];
}

/**
 * Uploads one file of an open snapshot as a stored blob (the encoding of the Node's own stores)
 * straight to an object store (a destination of kind S3), with requests the Controller presigned:
 * the Agent never holds the store's credentials, and each URL names one object (or one part of
 * it) for a short time. The encoded blob is cut into parts of `part_bytes`, each sent with one PUT
 * to the URL of its place (retried on a network error or a 5xx); the last part goes only once the
 * whole file was read and its sha256 matched, so a file that does not match leaves no object (a
 * multipart upload is completed, or aborted, by the Controller). Answered with ObjectUploaded.
 */
export interface SnapshotUpload {
  /**
   * The snapshot.
   */
  'snapshotId': (string);
  /**
   * A FILE entry's path.
   */
  'path': (string);
  /**
   * The file's sha256 as the snapshot's manifest gives it: other content fails CHECKSUM_MISMATCH.
   */
  'sha256': (string);
  /**
   * Every part but the last is this long.
   */
  'partBytes': (number);
  /**
   * One presigned PUT per part, in order; one URL uploads the whole object in one request. An
   * encoded blob needing more parts than URLs fails TOO_LARGE.
   */
  'partUrls': (string)[];
}
