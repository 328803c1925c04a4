import type { Logger } from '../../../shared/logger.js';
import type { NodeFleet } from '../../actors/fleet.js';
import { routable } from '../../domain/network.js';
import type { ServerDoc } from '../../store/records.js';
import { networkFactsOf, type NetworkState } from './network-state.js';
import type { DesiredChanges } from '../../core/desired-changes.js';
import type { ServerChangeHub } from '../servers/change-hub.js';

/** The facts of a server that make or shape a route; '' for a server that is not routed to. */
function routeKey(doc: ServerDoc): string {
  const facts = networkFactsOf(doc);
  return routable(facts) ? JSON.stringify([facts.name, facts.nodeId, facts.gamePort, facts.desiredInNetwork]) : '';
}

/**
 * Keeps the proxy's routes current: every server change that makes or shapes a route (a member
 * starts, stops, crashes, joins, leaves, moves or goes) and every change of a Node (its address,
 * the address it connects from) leads to one check, and when the route set differs from the one
 * last sent the proxy's Node gets its desired state again at once. Routes are derived, not part
 * of the proxy's spec: no new generation, and the Agent applies them without a restart.
 * Checks never overlap; changes that arrive during one lead to exactly one more.
 */
export class NetworkRoutePush {
  private readonly keys = new Map<string, string>();
  /** The proxy's id as server changes tell it ('' for none); undefined until read from the store once. */
  private proxyId?: string;
  private lastSent?: string;
  private dirty = false;
  private draining = false;

  constructor(
    private readonly state: NetworkState,
    private readonly desired: DesiredChanges,
    changes: Pick<ServerChangeHub, 'subscribe'>,
    fleet: Pick<NodeFleet, 'subscribe'>,
    private readonly logger: Logger,
  ) {
    changes.subscribe(({ doc, deleted }) => this.serverChanged(doc, deleted));
    fleet.subscribe(() => this.routesMayHaveChanged());
  }

  /** Something the routes depend on changed (the lobby, a Node): check them now. */
  routesMayHaveChanged(): void {
    this.dirty = true;
    if (this.draining) return;
    this.draining = true;
    void this.drain();
  }

  private serverChanged(doc: ServerDoc, deleted: boolean): void {
    // The proxy's own changes travel with its desired state; a new proxy is told everything at once.
    if (doc.kind === 'PROXY') {
      this.proxyId = deleted ? '' : doc._id;
      return;
    }
    const key = deleted ? '' : routeKey(doc);
    if ((this.keys.get(doc._id) ?? '') === key) return;
    if (key) this.keys.set(doc._id, key);
    else this.keys.delete(doc._id);
    this.routesMayHaveChanged();
  }

  private async drain(): Promise<void> {
    while (this.dirty) {
      this.dirty = false;
      try {
        await this.check();
      } catch (err) {
        this.logger.error({ err }, 'checking the network routes failed');
      }
    }
    this.draining = false;
  }

  /**
   * Found by id once known: found by kind it is a read of every server on the embedded store, and
   * every Node's change of state asks (5,000 Agents connecting: a scan of 100,000 servers each).
   */
  private async proxy(): Promise<ServerDoc | null> {
    if (this.proxyId !== undefined) return this.proxyId ? this.state.proxyWithId(this.proxyId) : null;
    const found = await this.state.proxy();
    // A create or delete heard during the read is newer than what it found.
    this.proxyId ??= found?._id ?? '';
    return found;
  }

  private async check(): Promise<void> {
    const proxy = await this.proxy();
    if (!proxy?.nodeId) return;
    const key = JSON.stringify([proxy._id, proxy.nodeId, await this.state.routeSet()]);
    if (key === this.lastSent) return;
    this.lastSent = key;
    this.desired.desiredStateChanged(proxy.nodeId, [proxy]);
  }
}
