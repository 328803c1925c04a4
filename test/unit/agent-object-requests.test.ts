import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getObject, putObjectPart } from '../../src/agent/transfers/object-requests.js';
import { failureOf } from '../support/agent-failure.js';
import { waitFor } from '../support/wait-for.js';

interface Seen {
  method: string;
  url: string;
  contentLength: string | undefined;
  body: Buffer;
}

const signature = 'X-Amz-Signature=secretsig';

describe('agent: presigned object requests', function () {
  // Retries wait 500 ms then 2 s on the real clock.
  this.timeout(15_000);
  let server: Server | undefined;
  let seen: Seen[];

  /** A local store answering the n-th request (0-based) with `answer(n, ...)`. */
  const serve = async (answer: (n: number, req: IncomingMessage, res: ServerResponse) => void): Promise<string> => {
    seen = [];
    server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('end', () => {
        const n = seen.length;
        seen.push({ method: req.method ?? '', url: req.url ?? '', contentLength: req.headers['content-length'], body: Buffer.concat(parts) });
        answer(n, req, res);
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const refuse = (res: ServerResponse, status: number, code: string) => {
    res.writeHead(status, { 'content-type': 'application/xml' });
    res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>no</Message></Error>`);
  };

  afterEach(async () => {
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
  });

  it('PUTs the body with its Content-Length and answers the ETag the store gave', async () => {
    const base = await serve((_n, _req, res) => {
      res.writeHead(200, { etag: '"abc123"' });
      res.end();
    });
    const body = Buffer.from('some encoded part bytes');
    const etag = await putObjectPart(`${base}/bucket/key?partNumber=1&${signature}`, [body], new AbortController().signal);
    expect(etag).to.equal('"abc123"');
    expect(seen).to.have.length(1);
    expect(seen[0].method).to.equal('PUT');
    expect(seen[0].url).to.equal(`/bucket/key?partNumber=1&${signature}`);
    expect(seen[0].contentLength).to.equal(String(body.length));
    expect(seen[0].body.equals(body)).to.equal(true);
  });

  it('tries a 5xx again and succeeds on the second answer', async () => {
    const base = await serve((n, _req, res) => {
      if (n === 0) return refuse(res, 503, 'SlowDown');
      res.writeHead(200, { etag: '"second"' });
      res.end();
    });
    const etag = await putObjectPart(`${base}/b/k`, [Buffer.from('x')], new AbortController().signal);
    expect(etag).to.equal('"second"');
    expect(seen.map((s) => s.method)).to.deep.equal(['PUT', 'PUT']);
    expect(seen[1].body.toString()).to.equal('x', 'a retry sends the whole body again');
  });

  it('fails a 4xx at once with the host and the S3 code, never the signature', async () => {
    const base = await serve((_n, _req, res) => refuse(res, 403, 'AccessDenied'));
    const host = new URL(base).host;
    const error = await failureOf(putObjectPart(`${base}/b/k?${signature}`, [Buffer.from('x')], new AbortController().signal));
    expect(error.code).to.equal('OBJECT_STORE');
    expect(error.message).to.include('403 AccessDenied');
    expect(error.message).to.include(host);
    expect(error.message).not.to.include('secretsig');
    expect(error.message).not.to.include('X-Amz-Signature');
    expect(seen).to.have.length(1);
  });

  it('gives up on a 5xx after 3 requests, naming the answer and the tries', async () => {
    const base = await serve((_n, _req, res) => refuse(res, 500, 'InternalError'));
    const error = await failureOf(getObject(`${base}/b/k?${signature}`, new AbortController().signal));
    expect(error.code).to.equal('OBJECT_STORE');
    expect(error.message).to.include('500 InternalError');
    expect(error.message).to.include('3 tries');
    expect(error.message).not.to.include('secretsig');
    expect(seen.map((s) => s.method)).to.deep.equal(['GET', 'GET', 'GET']);
  });

  it('GETs an object and streams its body', async () => {
    const content = Buffer.from('the stored object');
    const base = await serve((_n, _req, res) => {
      res.writeHead(200, { 'content-length': String(content.length) });
      res.end(content);
    });
    const res = await getObject(`${base}/b/k`, new AbortController().signal);
    const parts: Buffer[] = [];
    for await (const chunk of res) parts.push(chunk as Buffer);
    expect(Buffer.concat(parts).equals(content)).to.equal(true);
    expect(seen).to.have.length(1);
  });

  it('fails with OBJECT_STORE when nothing listens at the host', async () => {
    // A port just freed: nothing listens there during the test.
    const base = await serve(() => undefined);
    server!.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    const error = await failureOf(putObjectPart(`${base}/b/k?${signature}`, [Buffer.from('x')], new AbortController().signal));
    expect(error.code).to.equal('OBJECT_STORE');
    expect(error.message).to.include('could not be reached');
    expect(error.message).to.include(new URL(base).host);
    expect(error.message).not.to.include('secretsig');
  });

  it('refuses a URL that is not http or https, or not a URL, as INVALID_REQUEST', async () => {
    expect((await failureOf(putObjectPart('ftp://127.0.0.1/b/k', [Buffer.from('x')], new AbortController().signal))).code).to.equal('INVALID_REQUEST');
    expect((await failureOf(getObject('not a url', new AbortController().signal))).code).to.equal('INVALID_REQUEST');
  });

  it('stops retrying when its signal is aborted', async () => {
    const base = await serve((_n, _req, res) => refuse(res, 503, 'SlowDown'));
    const controller = new AbortController();
    const put = putObjectPart(`${base}/b/k`, [Buffer.from('x')], controller.signal).then(() => 'succeeded', (e: unknown) => e);
    await waitFor(() => seen.length === 1, { what: 'the first request' });
    controller.abort();
    const outcome = await put;
    expect(outcome).to.be.instanceOf(Error);
    expect((outcome as Error).name).to.equal('AbortError');
    // Without the abort the 503s would go on to a third request and an OBJECT_STORE failure.
    expect(seen).to.have.length(1);
  });

  it('ends a request under way when its signal is aborted', async () => {
    // The store never answers: only the abort can end the request.
    const base = await serve(() => undefined);
    const controller = new AbortController();
    const get = getObject(`${base}/b/k`, controller.signal).then(() => 'succeeded', (e: unknown) => e);
    await waitFor(() => seen.length === 1, { what: 'the request to arrive' });
    controller.abort();
    const outcome = await get;
    expect((outcome as Error).name).to.equal('AbortError');
    expect(seen).to.have.length(1);
  });
});
