import type { NodeFleet } from '../../../actors/fleet.js';
import type { AgentInbound } from '../../../link/agent-events.js';
import type { LinkForward } from '../../../link/link-forward.js';
import type { AgentSessions } from '../../../link/session-registry.js';
import type { TemplateCatalog } from '../../../adapters/software/template-catalog.js';
import type { ServiceDeps } from '../../deps.js';
import type { CopyTally } from '../../transfers/copy-tally.js';
import type { FileChangesUnderWay } from '../../files/file-changes.js';
import type { DesiredChanges } from '../../../core/desired-changes.js';
import type { NodeDirectory } from '../../../core/node-directory.js';
import type { ServerAggregate } from '../../servers/aggregate.js';
import type { PlacementTurn } from '../../servers/placement-turn.js';

/** How long a migration waits on a Node for what it asked through desired state; tests shorten them. */
export interface MigrationTimings {
  /** The source stopping the server (the hold) before the copy of what changed; past it, the migration rolls back. */
  stopMs: number;
  /** The target reporting the server in its desired runtime state (or given up after crashes) after the switch; past it, the migration finishes anyway. */
  startMs: number;
  /** A Node removing a copy it must no longer keep (the source's after the switch, the target's after an unclear commit). */
  removeMs: number;
  /** File changes through the API that began before the migration (an upload still streaming) ending before the last copy (60 s when absent); past it, the migration rolls back. */
  fileChangesMs?: number;
}

export const defaultMigrationTimings: MigrationTimings = { stopMs: 120_000, startMs: 120_000, removeMs: 120_000 };

/** What every migration run works with. */
export interface MigrationContext {
  deps: ServiceDeps;
  servers: ServerAggregate;
  /** Where a migration's target is chosen and its room reserved. */
  placing: PlacementTurn;
  templates: TemplateCatalog;
  directory: NodeDirectory;
  desired: DesiredChanges;
  nodeStates: Pick<NodeFleet, 'subscribe'>;
  agents: AgentSessions;
  /** A Node another Controller drives (the target, or the source of a run begun there) is asked through it. */
  forward?: LinkForward;
  /** Reports of the server from its Nodes: heard from the Agents here, or read from the store when another Controller drives the Node. */
  reports: Pick<AgentInbound, 'onServerReport'>;
  /** Whether this Controller drives the Node (every Node, on the embedded store). */
  drives: (nodeId: string) => boolean;
  fileChanges: Pick<FileChangesUnderWay, 'settled'>;
  timings: MigrationTimings;
  /** Where each copy's bytes and path are told (the metrics). */
  copies: CopyTally;
}
