import type { DesiredServer, DesiredServerChange, DesiredState } from '../../shared/link/messages.js';

/** What a desired-state message leads to on the Agent. */
export type SequenceOutcome =
  | { kind: 'full'; state: DesiredState }
  | { kind: 'change'; serverId: string; server: DesiredServer | null }
  /** A change out of sequence: ask for the full state (once until it comes). */
  | { kind: 'gap'; lastRevision: number; receivedRevision: number }
  /** A change while the full state is awaited: the full state will hold it. */
  | { kind: 'ignored' };

/**
 * The Agent's copy of its Node's desired state, kept from a full DesiredState and the
 * DesiredServerChanges after it. Revisions count every desired-state message of one stream, so a
 * change whose revision is not the next one means one went missing: from then on changes are
 * ignored until a full state arrives. A new stream starts over (its first message is a full state).
 */
export class DesiredSequence {
  private readonly servers = new Map<string, DesiredServer>();
  private revision = 0;
  private synced = false;
  private asked = false;
  private leaseTerm = 0;

  /** The current desired state; undefined before the first full state. */
  get state(): DesiredState | undefined {
    return this.synced ? { servers: [...this.servers.values()], revision: this.revision, leaseTerm: this.leaseTerm } : undefined;
  }

  full(state: DesiredState): SequenceOutcome {
    this.leaseTerm = state.leaseTerm;
    this.servers.clear();
    for (const server of state.servers) this.servers.set(server.serverId, server);
    this.revision = state.revision;
    this.synced = true;
    this.asked = false;
    return { kind: 'full', state };
  }

  change(change: DesiredServerChange): SequenceOutcome {
    if (!this.synced || change.revision !== this.revision + 1) {
      if (this.asked) return { kind: 'ignored' };
      this.asked = true;
      this.synced = false;
      return { kind: 'gap', lastRevision: this.revision, receivedRevision: change.revision };
    }
    this.revision = change.revision;
    if (change.server) {
      this.servers.set(change.server.serverId, change.server);
      return { kind: 'change', serverId: change.server.serverId, server: change.server };
    }
    this.servers.delete(change.removedServerId);
    return { kind: 'change', serverId: change.removedServerId, server: null };
  }

  /** The stream ended: the next one begins with a full state and revision 1. */
  reset(): void {
    this.synced = false;
    this.asked = false;
    this.revision = 0;
  }
}
