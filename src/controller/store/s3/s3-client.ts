import { S3Client } from '@aws-sdk/client-s3';

/** Where an S3 destination's objects are, and as whom the Controller reaches them. */
export interface S3Location {
  endpoint: string;
  region: string;
  bucket: string;
  /** Without leading or trailing `/`; empty for the bucket's root. */
  prefix: string;
  accessKeyId: string;
  forcePathStyle: boolean;
}

/** A connection that does not open in this long is an endpoint that cannot be reached. */
const connectMs = 10_000;
/** A socket silent this long mid-request is dead (a blob streams without pause). */
const idleMs = 120_000;

/**
 * A client for one destination. Checksums are sent and checked only where S3 requires them:
 * the SDK's default (CRC trailers on every streamed upload) is refused by many S3-compatible
 * servers, and every blob is checked against its sha256 on read anyway.
 */
export function s3ClientFor(location: S3Location, secretAccessKey: string): S3Client {
  return new S3Client({
    endpoint: location.endpoint,
    region: location.region,
    forcePathStyle: location.forcePathStyle,
    credentials: { accessKeyId: location.accessKeyId, secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    requestHandler: { connectionTimeout: connectMs, requestTimeout: idleMs },
  });
}
