import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { InternalPurpose, InternalTokens } from '../security/internal-token.js';
import { fromJsonLine, toJsonLine } from './link-json.js';

/** Another Controller on the store, where its HTTP API listens (its `controller:<id>` lease says). */
export interface PeerController {
  id: string;
  httpAddress: string;
}

/** Where the Controller driving a Node is, when it is not this one. */
export interface HolderRoutes {
  /** Undefined when this Controller drives the Node, or nobody does (it is then not connected anywhere). */
  holderOf(nodeId: string): Promise<PeerController | undefined>;
  /** The holder did not answer or no longer drives the Node: look it up again next time. */
  forget(nodeId: string): void;
}

/**
 * Requests from this Controller to another's internal endpoint, each with a token for that
 * Controller alone. With TLS every Controller serves the one certificate, checked against `ca`.
 */
export class PeerHttp {
  constructor(private readonly tokens: InternalTokens, private readonly tls?: { ca: Buffer }) {}

  async post(peer: PeerController, path: string, purpose: InternalPurpose, payload: unknown, signal: AbortSignal): Promise<IncomingMessage> {
    const token = await this.tokens.sign(peer.id, purpose);
    const body = toJsonLine(payload);
    const url = new URL(`${this.tls ? 'https' : 'http'}://${peer.httpAddress}${path}`);
    return new Promise((resolve, reject) => {
      const request = (this.tls ? httpsRequest : httpRequest)(url, {
        method: 'POST', signal, ...(this.tls ? { ca: this.tls.ca } : {}),
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      }, (answer) => {
        // An answer cut short (the peer gone, or this side hanging up once it read enough) is seen
        // by its reader as lines that stop before the last one; the error event adds nothing to that.
        answer.on('error', () => undefined);
        resolve(answer);
      });
      request.on('error', reject);
      request.end(body);
    });
  }
}

/**
 * The lines of an answer as they arrive. Leaving early destroys the answer (its connection is not
 * reused); an answer cut short ends the lines, or throws.
 */
async function* linesOf(input: Readable): AsyncGenerator<string> {
  // A character split between two pieces is joined before it is decoded.
  const decoder = new StringDecoder('utf8');
  let held = '';
  for await (const piece of input as AsyncIterable<Buffer>) {
    held += decoder.write(piece);
    let cut: number;
    while ((cut = held.indexOf('\n')) >= 0) {
      yield held.slice(0, cut).replace(/\r$/, '');
      held = held.slice(cut + 1);
    }
  }
  if (held !== '') yield held;
}

/** The JSON lines of an answer, as they arrive. */
export async function* jsonLines<T>(input: Readable): AsyncGenerator<T> {
  for await (const line of linesOf(input)) {
    if (line !== '') yield fromJsonLine<T>(line);
  }
}

/** The events of a Server-Sent Events answer (`event:` and one `data:` line of JSON each), as they arrive. */
export async function* eventLines(input: Readable): AsyncGenerator<{ event: string; data: unknown }> {
  let event = 'message';
  let data: string | undefined;
  for await (const line of linesOf(input)) {
    if (line === '') {
      if (data !== undefined) yield { event, data: JSON.parse(data) as unknown };
      event = 'message';
      data = undefined;
    } else if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data = line.slice(5).trimStart();
  }
}
