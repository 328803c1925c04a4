interface PeerWindow {
  audited: number;
  unaudited: number;
  endsAt: number;
}

/**
 * How many refused enrollments of one peer are audited in a window. Enroll needs no credential,
 * so without a bound anyone who can reach the link could grow the audit log at will: past the
 * budget a refusal is still refused and counted (metrics, and `unaudited` on the peer's next
 * audited refusal), but not audited one by one.
 */
export class RefusalAuditBudget {
  private readonly peers = new Map<string, PeerWindow>();
  private nextSweep = 0;

  constructor(private readonly perWindow: number, private readonly windowSeconds: number, private readonly now: () => number = Date.now) {}

  /**
   * Whether to audit this refusal; when it is, how many of the peer's refusals went unaudited
   * since the last audited one (0 for none).
   */
  take(peer: string): { audit: false } | { audit: true; unaudited: number } {
    const now = this.now();
    this.sweep(now);
    const current = this.peers.get(peer);
    const unaudited = current?.unaudited ?? 0;
    if (!current || now >= current.endsAt) {
      this.peers.set(peer, { audited: 1, unaudited: 0, endsAt: now + this.windowSeconds * 1000 });
      return { audit: true, unaudited };
    }
    if (current.audited >= this.perWindow) {
      current.unaudited += 1;
      return { audit: false };
    }
    current.audited += 1;
    current.unaudited = 0;
    return { audit: true, unaudited };
  }

  /** Drops windows a window after they ended (their untold count goes with them), at most once a window. */
  private sweep(now: number): void {
    const windowMs = this.windowSeconds * 1000;
    if (now < this.nextSweep) return;
    this.nextSweep = now + windowMs;
    for (const [peer, window] of this.peers) if (now >= window.endsAt + windowMs) this.peers.delete(peer);
  }
}
