/**
 * One webhook's pending deliveries, as ids and due times only (their bodies stay in the store
 * until sent), tried one at a time: a slow or dead endpoint holds back its own deliveries and
 * nothing else. A try is handed the id and answers when it is due again, or null once finished.
 */
export class DeliveryQueue {
  private readonly due = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private busy?: string;
  private closed = false;

  constructor(private readonly attempt: (deliveryId: string) => Promise<number | null>, private readonly now: () => number) {}

  get size(): number {
    return this.due.size + (this.busy !== undefined ? 1 : 0);
  }

  /** Whether the delivery waits here or is being tried. */
  has(deliveryId: string): boolean {
    return this.busy === deliveryId || this.due.has(deliveryId);
  }

  add(deliveryId: string, dueAt: number): void {
    this.due.set(deliveryId, dueAt);
    this.wake();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.due.clear();
  }

  private next(): [string, number] | undefined {
    let first: [string, number] | undefined;
    for (const entry of this.due) if (!first || entry[1] < first[1]) first = entry;
    return first;
  }

  private wake(): void {
    if (this.busy !== undefined || this.closed) return;
    clearTimeout(this.timer);
    const first = this.next();
    if (!first) return;
    this.timer = setTimeout(() => void this.run(first[0]), Math.max(0, first[1] - this.now()));
  }

  private async run(deliveryId: string): Promise<void> {
    this.busy = deliveryId;
    this.due.delete(deliveryId);
    try {
      const again = await this.attempt(deliveryId);
      if (again !== null && !this.closed) this.due.set(deliveryId, again);
    } finally {
      this.busy = undefined;
      this.wake();
    }
  }
}
