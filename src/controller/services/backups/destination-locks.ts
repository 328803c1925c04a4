/**
 * Backups writing into a destination share it; garbage collection needs it alone (a blob a
 * running backup has stored, or found there and skipped, is referenced by no manifest until that
 * backup writes its own). A waiting collection goes before backups that come after it, so a busy
 * destination is still collected.
 */
export class DestinationLocks {
  private readonly states = new Map<string, { readers: number; writer: boolean; queue: { exclusive: boolean; wake: () => void }[] }>();

  shared<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.run(key, false, work);
  }

  exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.run(key, true, work);
  }

  private state(key: string) {
    let s = this.states.get(key);
    if (!s) this.states.set(key, (s = { readers: 0, writer: false, queue: [] }));
    return s;
  }

  private async run<T>(key: string, exclusive: boolean, work: () => Promise<T>): Promise<T> {
    const s = this.state(key);
    const free = exclusive ? !s.writer && s.readers === 0 && s.queue.length === 0 : !s.writer && s.queue.length === 0;
    if (free) this.enter(s, exclusive);
    else await new Promise<void>((wake) => s.queue.push({ exclusive, wake }));
    try {
      return await work();
    } finally {
      if (exclusive) s.writer = false;
      else s.readers--;
      this.wakeNext(key, s);
    }
  }

  private enter(s: { readers: number; writer: boolean }, exclusive: boolean): void {
    if (exclusive) s.writer = true;
    else s.readers++;
  }

  private wakeNext(key: string, s: ReturnType<DestinationLocks['state']>): void {
    while (s.queue.length > 0 && !s.writer) {
      const next = s.queue[0];
      if (next.exclusive && s.readers > 0) return;
      s.queue.shift();
      this.enter(s, next.exclusive);
      next.wake();
      if (next.exclusive) return;
    }
    if (!s.writer && s.readers === 0 && s.queue.length === 0) this.states.delete(key);
  }
}
