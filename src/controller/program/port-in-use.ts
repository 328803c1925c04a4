import { isIPv6 } from 'node:net';
import { StartRefusedError } from '../../shared/program-config.js';

/** What listens on a port, and the flag that moves it. */
export interface Listener {
  host: string;
  port: number;
  /** `the HTTP API`. */
  what: string;
  /** `--http-port`. */
  flag: string;
}

/**
 * Answers a failed listen: a port in use (another Cairn, or any program) becomes a refusal naming
 * the address and the flag that changes it, instead of a crash with a stack trace the operator
 * has to read for the port; anything else is left as it is.
 */
export function refusePortInUse(listener: Listener): (error: unknown) => never {
  return (error) => {
    if ((error as NodeJS.ErrnoException | undefined)?.code !== 'EADDRINUSE') throw error;
    const address = isIPv6(listener.host) ? `[${listener.host}]:${listener.port}` : `${listener.host}:${listener.port}`;
    throw new StartRefusedError(`${address} is in use by another program: ${listener.what} cannot listen there; give it another port with ${listener.flag}`);
  };
}
