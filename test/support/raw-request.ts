import { request } from 'node:http';

export interface RawAnswer {
  status: number;
  contentType: string;
  /** The body as text; empty for a stream, which is left once its status and headers are in. */
  text: string;
}

/**
 * One HTTP request as a client may send it, a body on a GET included (fetch refuses that), with a
 * deadline for the whole answer. A `text/event-stream` answer is only looked at: its connection is
 * closed once the headers are in, as a client that goes away would.
 */
export function rawRequest(
  url: string, options: { method: string; headers?: Record<string, string>; body?: string | Buffer; timeoutMs: number },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers };
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    const req = request(url, { method: options.method, headers });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.on('response', (res) => {
      const contentType = res.headers['content-type'] ?? '';
      if (contentType.startsWith('text/event-stream')) {
        clearTimeout(timer);
        res.destroy();
        req.destroy();
        resolve({ status: res.statusCode ?? 0, contentType, text: '' });
        return;
      }
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => parts.push(chunk));
      res.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, contentType, text: Buffer.concat(parts).toString('utf8') });
      });
    });
    req.end(options.body);
  });
}
