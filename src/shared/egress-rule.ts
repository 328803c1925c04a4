/**
 * `CIDR[:PORT]`: where a game in its own network may go beyond the internet (contract:
 * "Containment", "A game's own network"). Shared because the Controller checks per-server entries
 * by the same rules the Agent reads them (and `--game-egress-allow`) with.
 */

/** An address block a game may reach, on one port or on all. */
export interface EgressRule {
  cidr: string;
  port?: number;
}

export const egressAllowRule = 'CIDR[:PORT], e.g. 203.0.113.0/24 or 203.0.113.7:5432';

export const isIpv4 = (s: string) => /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(s) && s.split('.').every((p) => Number(p) <= 255);

/** `203.0.113.0/24`, `203.0.113.7`, either with `:PORT`; undefined when it is none of these. */
export function parseEgressRule(raw: string): EgressRule | undefined {
  const match = /^([\d.]+)(?:\/(\d{1,2}))?(?::(\d{1,5}))?$/.exec(raw.trim());
  if (!match || !isIpv4(match[1])) return undefined;
  const [, address, rawBits, rawPort] = match as (string | undefined)[];
  const bits = rawBits === undefined ? 32 : Number(rawBits);
  const port = rawPort === undefined ? undefined : Number(rawPort);
  if (bits > 32 || (port !== undefined && (port < 1 || port > 65535))) return undefined;
  return { cidr: `${address}/${bits}`, ...(port === undefined ? {} : { port }) };
}
