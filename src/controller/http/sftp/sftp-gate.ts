/** How many SFTP connections are let in, counted per client address before any SSH is spoken. */
export interface SftpGateLimits {
  /** Connections one address may hold at once, signed in or not. */
  perAddress: number;
  /** Of those, how many may be still signing in: a flood of idle or guessing connections stops here. */
  signingInPerAddress: number;
  /** Connections in all. */
  total: number;
}

export const sftpGateLimits: SftpGateLimits = { perAddress: 16, signingInPerAddress: 8, total: 512 };

/** One admitted connection: tell the gate when it signs in, and when it closes (once; later calls are ignored). */
export interface SftpTicket {
  signedIn(): void;
  release(): void;
}

/**
 * Counts connections by address at TCP accept, so a client that opens connections by the thousand
 * is refused each extra one at the cost of closing a socket: no key exchange, no memory held for
 * it, nothing for the sign-in throttles to count. The counts free themselves as sockets close.
 */
export class SftpGate {
  private readonly held = new Map<string, number>();
  private readonly signingIn = new Map<string, number>();
  private open = 0;

  constructor(private readonly limits: SftpGateLimits = sftpGateLimits) {}

  /** A ticket for a new connection from `address`, or undefined when it must be closed at once. */
  admit(address: string): SftpTicket | undefined {
    const held = this.held.get(address) ?? 0;
    const signingIn = this.signingIn.get(address) ?? 0;
    if (this.open >= this.limits.total || held >= this.limits.perAddress || signingIn >= this.limits.signingInPerAddress) return undefined;
    this.open += 1;
    this.held.set(address, held + 1);
    this.signingIn.set(address, signingIn + 1);
    let state: 'signing-in' | 'signed-in' | 'closed' = 'signing-in';
    return {
      signedIn: () => {
        if (state !== 'signing-in') return;
        state = 'signed-in';
        this.decrement(this.signingIn, address);
      },
      release: () => {
        if (state === 'closed') return;
        if (state === 'signing-in') this.decrement(this.signingIn, address);
        state = 'closed';
        this.open -= 1;
        this.decrement(this.held, address);
      },
    };
  }

  private decrement(counts: Map<string, number>, address: string): void {
    const left = (counts.get(address) ?? 1) - 1;
    if (left > 0) counts.set(address, left);
    else counts.delete(address);
  }
}
