/**
 * Says something on a quiet stream. An Agent told a silence limit in Welcome leaves a Controller it
 * hears nothing from for that long (a frozen one), so a live Controller must never be that quiet:
 * the session sends a Keepalive once it has sent nothing for a third of the limit. Only quiet
 * streams pay, and any message sent moves the due time without touching the timer.
 */
export class SessionKeepalive {
  private lastSent = performance.now();
  private timer?: NodeJS.Timeout;

  constructor(private readonly everyMs: number, private readonly sendKeepalive: () => void) {
    this.schedule(everyMs);
  }

  /** Something else was sent. */
  sent(): void {
    this.lastSent = performance.now();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(inMs: number): void {
    this.timer = setTimeout(() => this.due(), inMs);
    // A session's timer never holds a stopping Controller up: closing the stream stops it anyway.
    this.timer.unref();
  }

  private due(): void {
    const quietMs = performance.now() - this.lastSent;
    if (quietMs >= this.everyMs) {
      this.sendKeepalive();
      this.lastSent = performance.now();
      this.schedule(this.everyMs);
    } else this.schedule(this.everyMs - quietMs);
  }
}
