import { SignatureV4 } from '@smithy/signature-v4';
import { NodeSha256 } from '../../src/controller/store/s3/node-sha256.js';

/** `20261127T064652Z` as a Date. */
function amzDate(text: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  return m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6])) : undefined;
}

/**
 * Why S3 would refuse a presigned request (`SignatureDoesNotMatch`, `AccessDenied` when expired),
 * or undefined when it would take it: the request is signed again with `secret` at its own date
 * and scope, with the values of the headers it names as signed, and the signatures compared. s3rver checks none, and presigned URLs signed with
 * the wrong key or over the wrong path would otherwise pass every test here.
 */
export async function presignedRefusal(
  secret: string, method: string, host: string, rawUrl: string, now = new Date(), headers: Record<string, string | string[] | undefined> = {},
): Promise<string | undefined> {
  const url = new URL(rawUrl, `http://${host}`);
  const q = url.searchParams;
  const [accessKeyId, , region, service] = (q.get('X-Amz-Credential') ?? '').split('/');
  const signedAt = amzDate(q.get('X-Amz-Date') ?? '');
  const expires = Number(q.get('X-Amz-Expires'));
  if (!accessKeyId || !region || !service || !signedAt || !(expires > 0)) return 'AuthorizationQueryParametersError';
  if (now.getTime() > signedAt.getTime() + expires * 1000) return 'AccessDenied';
  const query: Record<string, string> = {};
  for (const [k, v] of q) if (k !== 'X-Amz-Signature') query[k] = v;
  // The payload's hash (UNSIGNED-PAYLOAD for S3) is already in the query; the signer reads it from a header it must neither sign nor move.
  const payload = q.get('X-Amz-Content-Sha256');
  const headerOnly = new Set(['x-amz-content-sha256']);
  // The headers the URL was signed with (Content-Length, a checksum, metadata) count with the values the request sends.
  const signedNames = (q.get('X-Amz-SignedHeaders') ?? 'host').split(';').filter((name) => name !== 'host');
  const sent: Record<string, string> = {};
  for (const name of signedNames) sent[name] = String(headers[name] ?? '');
  const signer = new SignatureV4({ credentials: { accessKeyId, secretAccessKey: secret }, region, service, sha256: NodeSha256, uriEscapePath: false });
  const signed = await signer.presign(
    { method, protocol: 'http:', hostname: url.hostname, port: url.port ? Number(url.port) : undefined, path: url.pathname, query, headers: { host, ...sent, ...(payload ? { 'x-amz-content-sha256': payload } : {}) } },
    {
      signingDate: signedAt, expiresIn: expires, signingRegion: region, unhoistableHeaders: new Set([...headerOnly, ...signedNames]), unsignableHeaders: headerOnly,
      signableHeaders: new Set(signedNames),
    },
  );
  return signed.query?.['X-Amz-Signature'] === q.get('X-Amz-Signature') ? undefined : 'SignatureDoesNotMatch';
}
