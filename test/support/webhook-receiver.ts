import { createHmac, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  at: number;
  /** The path and query it was sent to. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver does with one request: answer with a status (and headers), or never answer. */
export type Answer = { status: number; headers?: Record<string, string> } | 'hang';

/**
 * A webhook endpoint on 127.0.0.1 (port 0) that keeps every request and answers as the test says;
 * by default 200. Requests it leaves hanging are ended when it closes.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  answer: (request: Received, index: number) => Answer = () => ({ status: 200 });
  private readonly hanging = new Set<ServerResponse>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const request: Received = { at: Date.now(), path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        receiver.received.push(request);
        const answer = receiver.answer(request, receiver.received.length - 1);
        if (answer === 'hang') {
          receiver.hanging.add(res);
          return;
        }
        res.writeHead(answer.status, answer.headers).end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** Those that carried `Cairn-Delivery: id`, oldest first. */
  of(deliveryId: string): Received[] {
    return this.received.filter((r) => r.headers['cairn-delivery'] === deliveryId);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close').catch(() => undefined);
  }
}

/** Checks `Cairn-Signature` as a receiver would: HMAC-SHA256 of "<t>.<body>" under the secret, compared in constant time. */
export function signatureValid(request: Received, secret: string): boolean {
  const header = request.headers['cairn-signature'];
  const match = typeof header === 'string' ? /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header) : null;
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${request.body}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2], 'hex'));
}
