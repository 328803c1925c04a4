import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { DomainError, invalidRequest } from '../../core/errors.js';
import { s3ClientFor, type S3Location } from '../../store/s3/s3-client.js';

/** How long the whole check (write, read, delete) may take before the endpoint counts as unreachable. */
export const accessCheckMs = 10_000;

type Step = 'write' | 'read' | 'delete';

const networkCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPROTO', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE']);

/**
 * What failed, as the field to mend: the problem names S3's own code so an operator can look it
 * up, and never echoes the secret (S3's messages do not carry it; ours do not either).
 */
export function accessProblem(e: unknown, step: Step, location: Pick<S3Location, 'bucket' | 'endpoint'>): DomainError {
  const err = e as { name?: string; code?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  const code = err.Code ?? err.name ?? '';
  switch (code) {
    case 'InvalidAccessKeyId': return invalidRequest('body.accessKeyId: S3 does not know this access key (InvalidAccessKeyId).');
    case 'SignatureDoesNotMatch': return invalidRequest('body.secretAccessKey: S3 refused the credentials (SignatureDoesNotMatch): the secret access key does not belong to the access key id.');
    case 'NoSuchBucket': return invalidRequest(`body.bucket: no such bucket ${location.bucket} at ${location.endpoint} (NoSuchBucket).`);
    case 'AccessDenied': return invalidRequest(`body.accessKeyId: S3 denied the ${step} of a test object under the prefix (AccessDenied); the key needs s3:PutObject, s3:GetObject, s3:DeleteObject and s3:ListBucket.`);
    case 'PermanentRedirect': case 'AuthorizationHeaderMalformed': case 'IllegalLocationConstraintException':
      return invalidRequest(`body.region: the bucket is in another region (${code}).`);
    case 'TimeoutError': case 'AbortError':
      return invalidRequest(`body.endpoint: no answer from ${location.endpoint} within ${accessCheckMs / 1000} s.`);
  }
  if (err.code && networkCodes.has(err.code)) return invalidRequest(`body.endpoint: could not connect to ${location.endpoint} (${err.code}).`);
  const status = err.$metadata?.httpStatusCode;
  if (status === undefined) return invalidRequest(`body.endpoint: could not connect to ${location.endpoint} (${code || 'no S3 answer'}).`);
  return invalidRequest(`body.endpoint: the ${step} of a test object failed: S3 answered ${status}${code ? ` ${code}` : ''}.`);
}

/**
 * Proves the Controller can keep backups there before the destination exists: a small object
 * written under the prefix, read back and deleted, all within the deadline.
 */
export async function checkS3Access(location: S3Location, secretAccessKey: string): Promise<void> {
  const client = s3ClientFor(location, secretAccessKey);
  const signal = AbortSignal.timeout(accessCheckMs);
  const key = `${location.prefix ? `${location.prefix}/` : ''}.cairn-access-check/${randomUUID()}`;
  const content = `cairn access check ${randomUUID()}`;
  let step: Step = 'write';
  try {
    await client.send(new PutObjectCommand({ Bucket: location.bucket, Key: key, Body: content }), { abortSignal: signal });
    step = 'read';
    const answer = await client.send(new GetObjectCommand({ Bucket: location.bucket, Key: key }), { abortSignal: signal });
    const read = await answer.Body?.transformToString('utf8');
    if (read !== content) throw invalidRequest('body.endpoint: the test object read back is not what was written; is this an S3-compatible endpoint?');
    step = 'delete';
    await client.send(new DeleteObjectCommand({ Bucket: location.bucket, Key: key }), { abortSignal: signal });
  } catch (e) {
    if (e instanceof DomainError) throw e;
    throw signal.aborted ? accessProblem({ name: 'TimeoutError' }, step, location) : accessProblem(e, step, location);
  } finally {
    client.destroy();
  }
}
