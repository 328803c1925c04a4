import { EventEmitter } from 'node:events';
import type { ServerDoc } from '../store/records.js';
import type { ServerListItemView } from './server-views.js';

export type ServerChange = { doc: ServerDoc; deleted: boolean };

/** What a watcher is sent, named as the watch stream names its events. */
export type ServerWatchEvent =
  | { event: 'server'; data: ServerListItemView }
  | { event: 'server-deleted'; data: { id: string } };

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

  /**
   * Subscribes `listener` to the changes `visible` lets through. The check is async, so every
   * change goes through one chain and they leave in the order they happened; a failed check is
   * reported to `failed` and the chain goes on.
   */
  subscribeVisible(
    visible: (doc: ServerDoc) => Promise<boolean>,
    listener: (change: ServerChange) => void,
    failed: (err: unknown) => void,
  ): () => void {
    let delivered = Promise.resolve();
    let open = true;
    // Read through a call: the unsubscribe may come while `visible` runs.
    const isOpen = () => open;
    const unsubscribe = this.subscribe((change) => {
      delivered = delivered
        .then(async () => {
          if (isOpen() && (await visible(change.doc)) && isOpen()) listener(change);
        })
        .catch(failed);
    });
    return () => {
      open = false;
      unsubscribe();
    };
  }
}
