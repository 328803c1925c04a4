/** Aborts `abort` once `ms` pass without a `touch()`: how a stream without an end marker is read to its end. */
export class QuietTimer {
  private timer?: NodeJS.Timeout;

  constructor(private readonly ms: number, private readonly abort: AbortController) {}

  touch(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.abort.abort(), this.ms);
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
