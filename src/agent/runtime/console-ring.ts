import type { OutputLine } from './shim-protocol.js';

/** The last `capacity` console lines, oldest first; a fixed array so appending never copies. */
export class ConsoleRing {
  private readonly slots: (OutputLine | undefined)[];
  private next = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    this.slots = new Array<OutputLine | undefined>(capacity);
  }

  push(line: OutputLine): void {
    this.slots[this.next] = line;
    this.next = (this.next + 1) % this.capacity;
    this.count = Math.min(this.count + 1, this.capacity);
  }

  get size(): number {
    return this.count;
  }

  /** The last `n` lines in the order they were written. */
  tail(n: number): OutputLine[] {
    const take = Math.min(n, this.count);
    const out: OutputLine[] = [];
    for (let i = take; i > 0; i -= 1) {
      const line = this.slots[(this.next - i + this.capacity) % this.capacity];
      if (line) out.push(line);
    }
    return out;
  }
}
