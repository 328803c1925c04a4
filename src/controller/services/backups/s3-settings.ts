import type { S3Location } from '../../store/s3/s3-client.js';
import { invalidRequest } from '../../core/errors.js';

/** What POST /backup-destinations takes for an S3 destination (the schema has checked each field's shape). */
export interface S3Input {
  endpoint?: string;
  region?: string;
  bucket?: string;
  prefix?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle?: boolean;
}

export const s3Fields = ['endpoint', 'region', 'bucket', 'prefix', 'accessKeyId', 'secretAccessKey', 'forcePathStyle'] as const;

/** The purpose a destination's secret access key is sealed under: it opens for that destination only. */
export const s3SecretPurpose = (destinationId: string) => `s3:${destinationId}`;

function required(input: S3Input, field: 'endpoint' | 'region' | 'bucket' | 'accessKeyId' | 'secretAccessKey'): string {
  const value = input[field];
  if (value === undefined || value.trim() === '') throw invalidRequest(`body.${field}: an S3 destination needs it.`);
  return value;
}

/** An http(s) URL with a host and nothing after it but a path: where the S3 API answers. */
function checkEndpoint(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw invalidRequest('body.endpoint: not a URL (e.g. https://s3.eu-west-1.amazonaws.com or http://minio.internal:9000).');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidRequest('body.endpoint: must be an http or https URL.');
  if (url.username || url.password) throw invalidRequest('body.endpoint: must not hold credentials; use accessKeyId and secretAccessKey.');
  if (url.search || url.hash) throw invalidRequest('body.endpoint: must not have a query or a fragment.');
  return endpoint.replace(/\/+$/, '');
}

/** Objects go under `<prefix>/<teamId>/`: the prefix loses its outer slashes and may not climb or repeat them. */
function checkPrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  if (trimmed.split('/').some((p) => p === '' || p === '.' || p === '..')) {
    throw invalidRequest('body.prefix: segments must not be empty, "." or ".." (e.g. cairn/backups).');
  }
  return trimmed;
}

/** The destination's location and secret from the request; a field another kind sent is refused by the caller. */
export function s3Settings(input: S3Input): { location: S3Location; secretAccessKey: string } {
  const endpoint = checkEndpoint(required(input, 'endpoint'));
  return {
    location: {
      endpoint, region: required(input, 'region'), bucket: required(input, 'bucket'), prefix: checkPrefix(input.prefix),
      accessKeyId: required(input, 'accessKeyId'), forcePathStyle: input.forcePathStyle ?? false,
    },
    secretAccessKey: required(input, 'secretAccessKey'),
  };
}
