import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, fetch } from 'undici';
import { deadlineSignal } from '../../../shared/deadline.js';
import { tryTimeoutMs, type TryOutcome } from '../../domain/webhooks/delivery-plan.js';
import { hostOf, isPrivateAddress } from './webhook-address.js';

class PrivateAddressError extends Error {}

/**
 * The lookup every connection of a try makes: an address checked when the URL was saved may
 * have changed since (DNS rebinding), so the one actually dialled is checked again here.
 */
const publicOnly: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 4);
    const inside = addresses.find((a) => isPrivateAddress(a.address));
    if (inside) return callback(new PrivateAddressError(`${hostname} resolves to a private address (${inside.address})`), '', 4);
    if (options.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0].address, addresses[0].family);
  });
};

const causeOf = (e: unknown): string => {
  const err = e as Error & { cause?: Error & { code?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer within ${tryTimeoutMs / 1000} s`;
  const cause = err.cause;
  if (cause instanceof PrivateAddressError) return `refused: ${cause.message}`;
  return cause ? (cause.code ? `${cause.code}: ${cause.message}` : cause.message) : err.message;
};

/**
 * One try of one delivery: a POST that follows no redirect (a 3xx is an answer like any other
 * that did not deliver) and waits at most the plan's try timeout, body included.
 */
export class WebhookSender {
  private readonly dispatcher: Agent;

  constructor(private readonly allowPrivate: boolean) {
    this.dispatcher = new Agent({ connect: allowPrivate ? {} : { lookup: publicOnly }, keepAliveTimeout: 10_000 });
  }

  async send(url: string, headers: Record<string, string>, body: string, stop: AbortSignal): Promise<TryOutcome> {
    const host = hostOf(new URL(url));
    if (!this.allowPrivate && isIP(host) && isPrivateAddress(host)) return { kind: 'failed', error: `refused: ${host} is a private address` };
    try {
      const res = await fetch(url, {
        method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, redirect: 'manual',
        dispatcher: this.dispatcher, signal: deadlineSignal(tryTimeoutMs, stop),
      });
      // What the endpoint says back is not kept; reading it frees the connection for the next try.
      await res.body?.cancel();
      return { kind: 'answered', status: res.status, retryAfter: res.headers.get('retry-after') };
    } catch (e) {
      return { kind: 'failed', error: causeOf(e) };
    }
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}
