import { BlockList, isIP } from 'node:net';

/** `::ffff:192.0.2.1` (an IPv4 peer on a dual-stack socket) as `192.0.2.1`, and a port or brackets some proxies add left off. */
function plainAddress(raw: string): string {
  const text = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  const address = bracketed ? bracketed[1] : /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(text)?.[1] ?? text;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped ? mapped[1] : address;
}

/**
 * The peers whose `X-Forwarded-For` is believed (`--trust-proxy CIDR...`): reverse proxies that
 * append the address they were reached from. Anyone else could write any address there, and so
 * pick the key the sign-in throttles count it under.
 */
export class TrustedProxies {
  private readonly ranges = new BlockList();

  /** Throws a message naming the first value that is not an address or a CIDR range. */
  constructor(cidrs: readonly string[]) {
    for (const cidr of cidrs) {
      const parts = cidr.trim().split('/');
      const family = isIP(parts[0]);
      const widest = family === 6 ? 128 : 32;
      const prefix = parts.length === 1 ? widest : /^\d+$/.test(parts[1]) ? Number(parts[1]) : NaN;
      if (family === 0 || parts.length > 2 || !(prefix >= 0 && prefix <= widest)) {
        throw new Error(`"${cidr}" is not an IP address or a CIDR range (e.g. 10.0.0.0/8, 192.0.2.7, fd00::/8)`);
      }
      this.ranges.addSubnet(parts[0], prefix, family === 6 ? 'ipv6' : 'ipv4');
    }
  }

  private trusts(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.ranges.check(address, family === 6 ? 'ipv6' : 'ipv4');
  }

  /**
   * The client's address: the socket's peer, unless that is a trusted proxy; then the right-most
   * `X-Forwarded-For` entry that is not a trusted proxy (entries left of it were written by whoever
   * sent the request, and prove nothing). An entry that is not an address ends the walk at the hop
   * that passed it on.
   */
  clientAddress(peer: string, forwardedFor: string | undefined): string {
    let address = plainAddress(peer);
    if (!forwardedFor || !this.trusts(address)) return address;
    const hops = forwardedFor.split(',');
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = plainAddress(hops[i]);
      if (isIP(hop) === 0) return address;
      address = hop;
      if (!this.trusts(hop)) return hop;
    }
    return address;
  }
}
