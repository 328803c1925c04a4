import { isIP } from 'node:net';

const label = '[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const hostname = new RegExp(`^${label}(\\.${label})*\\.?$`);

/** A Node address is empty (use the observed one), a host name, or an IPv4/IPv6 address; never with a port. */
export function isNodeAddress(value: string): boolean {
  if (value === '') return true;
  if (value.length > 253) return false;
  return isIP(value) !== 0 || hostname.test(value);
}

/** The address in use: the administrator's, or else the one the Agent connected from; empty while unknown. */
export const reachAddressOf = (address: string, observedAddress: string | undefined) => address || observedAddress || '';
