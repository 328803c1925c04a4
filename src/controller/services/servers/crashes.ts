import type { LastCrash } from '../../domain/last-crash.js';
import type { ServerDoc } from '../../store/records.js';

/**
 * The last crash of each server as the Agent of its Node last reported it. Memory only: its lines
 * are console output, which the Controller relays and never stores.
 */
export class ServerCrashes {
  private readonly byServer = new Map<string, { nodeId: string; crash: LastCrash }>();

  /** A report from `nodeId`: its last crash replaces the one kept, or (none, or the server removed) clears what that Node said. */
  report(nodeId: string, serverId: string, crash: LastCrash | undefined, removed: boolean): void {
    if (crash && !removed) {
      this.byServer.set(serverId, { nodeId, crash });
      return;
    }
    if (this.byServer.get(serverId)?.nodeId === nodeId) this.byServer.delete(serverId);
  }

  /** The server's last crash, as told by the Node it is on now. */
  of(doc: ServerDoc): LastCrash | undefined {
    const kept = this.byServer.get(doc._id);
    return kept && kept.nodeId === doc.nodeId ? kept.crash : undefined;
  }
}
