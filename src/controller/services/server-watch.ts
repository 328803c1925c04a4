import { EventEmitter } from 'node:events';
import type { ServerDoc } from '../store/records.js';

export type ServerChange = { doc: ServerDoc; deleted: boolean };

/**
 * Fans every server change out to watchers (GET /servers/watch). In memory: a watcher that
 * reconnects re-lists first, as with any list-then-watch API.
 */
export class ServerWatchHub {
  private readonly emitter = new EventEmitter();

  constructor() {
    // Each SSE client adds one listener; hundreds of SRE dashboards are normal.
    this.emitter.setMaxListeners(0);
  }

  publish(change: ServerChange): void {
    this.emitter.emit('change', change);
  }

  subscribe(listener: (change: ServerChange) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }
}
