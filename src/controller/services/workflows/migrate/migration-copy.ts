import type { ManifestEntry } from '../../../../shared/backup/manifest.js';
import { reachAddressOf } from '../../../../shared/node-address.js';
import type { RequestBody, Response } from '../../../../shared/link/messages.js';
import { isAgentRequestError } from '../../../link/errors.js';
import { NodeCalls, type CallOptions } from '../../../link/node-calls.js';
import type { AgentSessions } from '../../../link/session-registry.js';
import { copyEntries } from '../../transfers/copy.js';
import type { CopyPath } from '../../../schemas/servers.js';
import { PeerUnavailable, peerCodes, pullEntries } from '../../transfers/peer-copy.js';
import type { SnapshotSource } from '../../transfers/snapshot-source.js';
import type { StageSink } from '../../transfers/stage-sink.js';
import { StepFailure } from '../step-failure.js';
import type { WorkflowCalls } from '../workflow-calls.js';
import type { MigrationContext } from './migration-context.js';

/** Calls that leave the Agents' "not this way" refusals as they are (the copy falls back on them) and make any other failure the step's. */
class PeerCalls extends NodeCalls {
  constructor(sessions: AgentSessions, private readonly calls: WorkflowCalls) {
    super(sessions);
  }

  override async askNode(nodeId: string | undefined, body: RequestBody, options: CallOptions): Promise<Response> {
    if (!nodeId) throw new StepFailure('the server is not placed on a Node');
    try {
      return await this.calls.sendRaw(nodeId, body, options);
    } catch (e) {
      if (isAgentRequestError(e) && peerCodes.has(e.code)) throw e;
      throw new StepFailure(this.calls.describe(nodeId, body.body, e));
    }
  }
}

/**
 * How one migration copies: the target pulls from the source (no byte through the Controller)
 * unless the Agents cannot reach each other; then this pass, and every later one of the same
 * migration, goes through the Controller as before. Once fallen back it does not try again: the
 * last pass runs while the server is stopped, and must not wait out a connect timeout first.
 */
export class MigrationCopy {
  private fellBack = false;
  private readonly peerCalls: PeerCalls;

  constructor(private readonly ctx: Pick<MigrationContext, 'agents' | 'deps' | 'copies'>, calls: WorkflowCalls, private readonly serverId: string) {
    this.peerCalls = new PeerCalls(ctx.agents, calls);
  }

  /** Copies the entries into the stage; answers the path the files took. */
  async copy(snapshot: SnapshotSource, sink: StageSink, entries: readonly ManifestEntry[], expectManifest: boolean): Promise<CopyPath> {
    if (!this.fellBack) {
      try {
        const bytes = await this.direct(snapshot, sink, entries, expectManifest);
        this.ctx.copies.record('DIRECT', bytes);
        return 'DIRECT';
      } catch (err) {
        if (!(err instanceof PeerUnavailable)) throw err;
        this.fellBack = true;
        this.ctx.deps.logger.warn({ err, serverId: this.serverId, sourceNodeId: snapshot.nodeId, targetNodeId: sink.nodeId }, 'the Agents cannot copy between themselves; the migration copies through the Controller');
      }
    }
    const bytes = await copyEntries(snapshot, sink, entries, expectManifest);
    this.ctx.copies.record('RELAYED', bytes);
    return 'RELAYED';
  }

  private async direct(snapshot: SnapshotSource, sink: StageSink, entries: readonly ManifestEntry[], expectManifest: boolean): Promise<number> {
    const node = await this.ctx.deps.repos.nodes.findById(snapshot.nodeId);
    const host = node ? reachAddressOf(node.address, node.status.observedAddress) : '';
    return pullEntries(this.peerCalls, snapshot, sink, entries, expectManifest, host);
  }
}
