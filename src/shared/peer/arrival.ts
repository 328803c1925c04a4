import type { Duplex } from 'node:stream';

/** The connection ended or broke off mid-frame. */
export class BrokeOff extends Error {
  constructor(what: string) {
    super(`the connection ended before ${what}`);
    this.name = 'BrokeOff';
  }
}

/** A socket's end, watched, and the one reader waiting for more of what arrives on it. */
export class Arrival {
  ended = false;
  private failure?: Error;
  private wake?: () => void;

  constructor(socket: Duplex) {
    socket.once('end', () => this.stop());
    socket.once('close', () => this.stop());
    socket.on('error', (e: Error) => this.stop(e));
  }

  /** Settles when `notify` is next called; BrokeOff once the connection has ended. */
  async more(what: string): Promise<void> {
    if (this.ended) throw new BrokeOff(this.failure ? `${what} (${this.failure.message})` : what);
    await new Promise<void>((resolve) => {
      this.wake = resolve;
    });
  }

  /** Something arrived (or the end did): the waiting reader looks again. */
  notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  stop(e?: Error): void {
    this.ended = true;
    this.failure ??= e;
    this.notify();
  }
}
