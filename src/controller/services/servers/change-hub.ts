import { EventEmitter } from 'node:events';
import type { ServerDoc } from '../../store/records.js';

export type ServerChange = { doc: ServerDoc; deleted: boolean };

/**
 * Fans every server change out inside the Controller: the watch stream's journal
 * (ServerWatchStream), the network's routes, plugins and backup schedules listen here.
 */
export class ServerChangeHub {
  private readonly emitter = new EventEmitter();

  constructor() {
    // Every listener is a service, not a client; the cap would only warn.
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
