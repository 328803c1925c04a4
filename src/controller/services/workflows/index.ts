import type { NodeFleet } from '../../actors/fleet.js';
import type { AgentInbound } from '../../link/agent-events.js';
import type { LinkForward } from '../../link/link-forward.js';
import type { AgentSessions } from '../../link/session-registry.js';
import type { ArtifactStore } from '../../adapters/software/artifact-store.js';
import type { TemplateCatalog } from '../../adapters/software/template-catalog.js';
import { backupDeadlines } from '../backups/backup-deadlines.js';
import type { BackupServices } from '../backups/index.js';
import { nodeReady } from '../backups/node-ready.js';
import { RawNodeCalls } from '../backups/raw-node-calls.js';
import type { ServiceDeps } from '../deps.js';
import type { FileChangesUnderWay } from '../files/file-changes.js';
import type { Access } from '../identity/access.js';
import type { DesiredChanges } from '../../core/desired-changes.js';
import type { NodeDirectory } from '../../core/node-directory.js';
import type { NodeService } from '../nodes/nodes.js';
import type { CatalogService } from '../plugins/catalog.js';
import type { ServerChangeHub } from '../servers/change-hub.js';
import type { ServerAggregate } from '../servers/aggregate.js';
import type { PlacementTurn } from '../servers/placement-turn.js';
import { CopyTally } from '../transfers/copy-tally.js';
import { NodeDrain } from './migrate/drain.js';
import { defaultMigrationTimings, type MigrationTimings } from './migrate/migration-context.js';
import { MigrationService } from './migrate/migrations.js';
import { RestoreService } from './restore/restores.js';
import { SoftwarePrefetch } from './update/software-prefetch.js';
import { defaultUpdateTimings, type UpdateTimings } from './update/update-run.js';
import { UpdateService } from './update/updates.js';
import { WorkflowOutcomes } from './workflow-outcomes.js';
import { WorkflowRunner } from './workflow-runner.js';

export interface WorkflowDeps {
  deps: ServiceDeps;
  access: Access;
  servers: ServerAggregate;
  placing: PlacementTurn;
  templates: TemplateCatalog;
  nodes: NodeService;
  fleet: NodeFleet;
  agents: AgentSessions;
  /** With several Controllers: how a migration asks a Node another Controller drives, and hears that Node's reports. */
  forward?: LinkForward;
  reports?: Pick<AgentInbound, 'onServerReport'>;
  /** Whether this Controller drives the Node (every Node, on the embedded store). */
  drives: (nodeId: string) => boolean;
  directory: NodeDirectory;
  desired: DesiredChanges;
  serverChanges: ServerChangeHub;
  backups: BackupServices;
  catalog: Pick<CatalogService, 'current'>;
  /** Where the software an update installs is downloaded to before the Node fetches it. */
  artifacts: Pick<ArtifactStore, 'ensureDownload'>;
  /** File changes through the API under way: refused while a workflow runs, and awaited before its files are replaced or last copied. */
  fileChanges: Pick<FileChangesUnderWay, 'settled'>;
  /** How long a drain carried on at start waits for another Node to take placements: the time after which a silent Node is unreachable anyway. */
  reconnectGraceMs: number;
  migrationTimings?: MigrationTimings;
  updateTimings?: UpdateTimings;
}

/**
 * The workflows of servers (migrate, restore, update) and the drain made of migrations, on one
 * runner: it runs each in the server's turn, counts how each ended, resumes them all at start
 * (`runner.resume()`) and stops them all at shutdown (`runner.stop()`).
 */
export function createWorkflowServices(d: WorkflowDeps) {
  const outcomes = new WorkflowOutcomes();
  const copies = new CopyTally();
  const runner = new WorkflowRunner(d.deps, (serverId, work) => d.backups.runner.exclusive(serverId, work), outcomes);
  const { deps, servers, templates } = d;
  const calls = new RawNodeCalls(d.agents);
  const ready = (nodeId: string) => nodeReady(d.fleet, nodeId, backupDeadlines.nodeReadyMs);
  const migrations = new MigrationService({
    deps, servers, placing: d.placing, templates, directory: d.directory, desired: d.desired, nodeStates: d.fleet, agents: d.agents, forward: d.forward, reports: d.reports ?? d.agents, drives: d.drives, fileChanges: d.fileChanges,
    timings: d.migrationTimings ?? defaultMigrationTimings, copies,
  }, d.access, runner);
  const restore = new RestoreService({
    deps, servers, templates, destinations: d.backups.destinations, runner: d.backups.runner, calls, changes: d.serverChanges, nodeReady: ready, fileChanges: d.fileChanges,
  }, d.access, d.backups.backups, d.directory, runner);
  const updates = new UpdateService({
    deps, servers, templates, runner: d.backups.runner, destinations: d.backups.destinations, removal: d.backups.removal, calls,
    prefetch: new SoftwarePrefetch(deps, templates, d.artifacts, calls), changes: d.serverChanges, nodeReady: ready, fileChanges: d.fileChanges,
    timings: d.updateTimings ?? defaultUpdateTimings,
  }, d.directory, d.catalog, runner);
  const drain = new NodeDrain(deps, d.nodes, migrations, runner, d.directory, d.reconnectGraceMs);
  for (const definition of [migrations, restore, updates]) runner.define(definition);
  // After the migrations it left are resumed: a drain waits for them before it looks again.
  runner.carryOn(drain);
  return { runner, outcomes, copies, migrations, drain, restore, updates };
}
