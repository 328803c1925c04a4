import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { presignedRefusal } from './s3-signatures.js';

/** s3rver checks the access key id (it knows only this one) but not v4 signatures. */
export const s3rverAccessKeyId = 'S3RVER';

/** One request the S3 server answered, as its front saw it. */
export interface S3Request {
  method: string;
  /** The path (`/<bucket>/<key>`), without the query. */
  path: string;
  query: URLSearchParams;
  /** Signed in its query (a presigned URL), not in an Authorization header. */
  presigned: boolean;
}

/**
 * An answer the front gives in place of the server: `status` with an S3 error document naming
 * `code`, or with `xml` (a call s3rver lacks, played by the test).
 */
export interface S3Refusal {
  matches(r: S3Request): boolean;
  status: number;
  code?: string;
  xml?: string;
  /** How many matching requests to refuse (all when unset). */
  times?: number;
}

/**
 * A local S3-compatible server on a private ephemeral port, with its own temporary directory and
 * one bucket, behind a front that records every request and can refuse some (s3rver itself
 * checks no signature, so a refused presigned request is played by the front).
 */
export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** A client of the test's own, to look at what the Controller stored. */
  client: S3Client;
  /** Every request so far, oldest first. */
  requests: S3Request[];
  /**
   * From now on presigned requests must be signed with `secret` (and not be expired), or the
   * front refuses them as S3 would; s3rver itself checks no signature.
   */
  expectSecret(secret: string): void;
  /** Answers matching requests in place of the server from now on; answers what ends it. */
  refuse(refusal: S3Refusal): () => void;
  /** Every key under `prefix` (the tests keep under 1,000: s3rver cannot page on this Node's OpenSSL). */
  keys(prefix: string): Promise<string[]>;
  dispose(): Promise<void>;
}

/** The request's body, whole (the tests' objects are small). */
async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

/**
 * Why S3 would refuse a PUT's body (undefined when it would take it): a body of another length
 * than its Content-Length (`IncompleteBody`), or one whose SHA-256 is not its
 * `x-amz-checksum-sha256` (`BadDigest`). s3rver checks neither.
 */
function bodyRefusal(req: IncomingMessage, body: Buffer): string | undefined {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) !== body.length) return 'IncompleteBody';
  const checksum = req.headers['x-amz-checksum-sha256'];
  if (checksum !== undefined && createHash('sha256').update(body).digest('base64') !== checksum) return 'BadDigest';
  return undefined;
}

/** Hands the request on to s3rver; `body` when the front read it already. */
function forward(port: number, req: IncomingMessage, res: ServerResponse, body?: Buffer): void {
  const upstream = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => res.destroy());
  if (body) upstream.end(body);
  else req.pipe(upstream);
}

/** `front: false` leaves the front out (a bench measuring the store, not the front's copying). */
export async function startTestS3(bucket = 'cairn-backups', options: { front?: boolean } = {}): Promise<TestS3> {
  const directory = await mkdtemp(join(tmpdir(), 'cairn-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const requests: S3Request[] = [];
  const refusals: S3Refusal[] = [];
  let secret: string | undefined;
  const answer = (req: IncomingMessage, res: ServerResponse, status: number, xml: string) => {
    req.resume();
    res.writeHead(status, { 'content-type': 'application/xml' });
    res.end(xml);
  };
  const errorDocument = (code: string) => `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>refused by the test</Message></Error>`;
  const front = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://front');
    const seen: S3Request = { method: req.method ?? '', path: url.pathname, query: url.searchParams, presigned: url.searchParams.has('X-Amz-Signature') && !req.headers.authorization };
    requests.push(seen);
    const refusal = refusals.find((r) => (r.times ?? 1) > 0 && r.matches(seen));
    if (refusal) {
      if (refusal.times !== undefined) refusal.times--;
      return answer(req, res, refusal.status, refusal.xml ?? errorDocument(refusal.code ?? 'InternalError'));
    }
    if (seen.method !== 'PUT') return check(req, res, seen);
    bodyOf(req).then((body) => {
      const refused = bodyRefusal(req, body);
      return refused ? answer(req, res, 400, errorDocument(refused)) : check(req, res, seen, body);
    }, () => res.destroy());
  });
  /** The signature checked as S3 would, then the request handed on. */
  const check = (req: IncomingMessage, res: ServerResponse, seen: S3Request, body?: Buffer) => {
    if (!seen.presigned || secret === undefined) return forward(port, req, res, body);
    presignedRefusal(secret, seen.method, req.headers.host ?? '', req.url ?? '/', new Date(), req.headers).then(
      (code) => (code ? answer(req, res, 403, errorDocument(code)) : forward(port, req, res, body)),
      () => answer(req, res, 500, errorDocument('InternalError')),
    );
  };
  if (options.front !== false) await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${options.front === false ? port : (front.address() as AddressInfo).port}`;
  const client = new S3Client({
    endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: s3rverAccessKeyId, secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    endpoint, bucket, client, requests,
    expectSecret(next) {
      secret = next;
    },
    refuse(refusal) {
      refusals.push(refusal);
      return () => refusals.splice(refusals.indexOf(refusal), 1);
    },
    async keys(prefix) {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
      return (page.Contents ?? []).map((o) => o.Key ?? '');
    },
    async dispose() {
      client.destroy();
      if (front.listening) {
        front.closeAllConnections();
        await new Promise((resolve) => front.close(resolve));
      }
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
