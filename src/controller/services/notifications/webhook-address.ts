import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { invalidRequest } from '../../core/errors.js';

/**
 * Addresses a webhook may not reach without `--allow-private-webhooks`: anyone who may create a
 * webhook could otherwise make the Controller post into its own network (its store, its Agents,
 * a cloud's metadata service). BlockList also matches the IPv4-mapped IPv6 forms of the IPv4 ranges.
 */
const refused = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) refused.addSubnet(network, prefix, 'ipv4');
// `::/96` holds `::`, `::1` and the old IPv4-compatible forms; fc00::/7 is ULA, fe80::/10 link-local, ff00::/8 multicast.
for (const [network, prefix] of [['::', 96], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b:1::', 48]] as const) refused.addSubnet(network, prefix, 'ipv6');

export const isPrivateAddress = (address: string) => refused.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');

/** The host of a URL as an address or a name: `[::1]` → `::1`. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * A webhook's URL as given (`field` names it in the problem): http(s), no credentials, and unless
 * private addresses are allowed, a host whose every address is public. A name that does not
 * resolve is refused too: nothing could be delivered to it.
 */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean, field = 'body.url'): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidRequest(`${field}: not a URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidRequest(`${field}: must be http or https.`);
  if (url.username || url.password) throw invalidRequest(`${field}: must not carry credentials; use a secret to sign deliveries.`);
  if (allowPrivate) return url.href;
  const host = hostOf(url);
  let addresses: LookupAddress[];
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true, verbatim: true });
  } catch {
    throw invalidRequest(`${field}: the host ${host} does not resolve.`);
  }
  const inside = addresses.find((a) => isPrivateAddress(a.address));
  if (inside) {
    throw invalidRequest(`${field}: ${host} is a loopback, link-local or private address (${inside.address}); the Controller refuses those unless it runs with --allow-private-webhooks.`);
  }
  return url.href;
}
