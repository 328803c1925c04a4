import type { Access } from '../identity/access.js';
import type { AuditService } from '../audit/audit.js';
import type { ServiceDeps } from '../deps.js';
import type { ServerChangeHub } from '../servers/change-hub.js';
import type { ServerAggregate } from '../servers/aggregate.js';
import type { NodeFleet } from '../../actors/fleet.js';
import type { AgentSessions } from '../../link/session-registry.js';
import type { ClusterMembership } from '../leases/membership.js';
import type { HolderHandoff } from '../leases/holder-handoff.js';
import type { LinkForward } from '../../link/link-forward.js';
import { Listeners } from '../../../shared/listeners.js';
import { reachAddressOf } from '../../../shared/node-address.js';
import type { ReadPath } from '../transfers/snapshot-reads.js';
import { nowIso } from '../deps.js';
import { backupDeadlines } from './backup-deadlines.js';
import { nodeReady } from './node-ready.js';
import { BackupHandoff } from './backup-handoff.js';
import { BackupRemoval } from './backup-removal.js';
import { BackupRunner } from './backup-runner.js';
import { BackupService } from './backups.js';
import { ControllerKind } from './controller-kind.js';
import { DestinationClaims } from './destination-claims.js';
import { DestinationLocks } from './destination-locks.js';
import { BackupDestinations } from './destinations.js';
import { NodeDirectoryKind } from './node-directory-kind.js';
import { RawNodeCalls } from './raw-node-calls.js';
import { processTimers, type ScheduleTimers } from '../../core/schedule-timers.js';
import { BackupScheduler } from './scheduler.js';
import { BackupSchedules } from './schedules.js';

export interface BackupDeps {
  deps: ServiceDeps;
  access: Access;
  audit: AuditService;
  servers: ServerAggregate;
  agents: AgentSessions;
  fleet: NodeFleet;
  serverChanges: ServerChangeHub;
  /** What schedules' timers run on (tests pass a clock they move). */
  timers?: ScheduleTimers;
  /** With several Controllers: how often the one running the backup schedules looks for those created through the others. */
  followEveryMs?: number;
  /** Who writes and collects here, and which Controllers are alive: with several, their claims on shared destinations. */
  cluster: Pick<ClusterMembership, 'controllerId' | 'controllers'>;
  /** With several Controllers: backups asked here for a Node another drives are handed to it. */
  holder?: HolderHandoff;
  /** With several Controllers: Agent requests for a Node another drives (a prune of its directory) go through it. */
  forward?: LinkForward;
}

/** Backups, their destinations and schedules: built together, started after the servers. */
export function createBackupServices(d: BackupDeps) {
  const calls = new RawNodeCalls(d.agents, d.forward);
  const locks = new DestinationLocks();
  const destinations = new BackupDestinations(d.deps, d.access);
  const nodeDirectory = new NodeDirectoryKind(calls, locks);
  const teamsIn = async (destinationId: string) => new Set((await d.deps.repos.backups.find({ destinationId, teamArea: true })).map((b) => b.teamId));
  /** The bytes backups read into the Controller's store, by the way they came. */
  const reads = new Listeners<[ReadPath, number]>();
  const claims = new DestinationClaims(d.deps.repos.kind === 'embedded' ? undefined : {
    claims: d.deps.repos.destinationClaims, controllerId: d.cluster.controllerId, alive: async () => new Set((await d.cluster.controllers()).map((c) => c.id)),
    now: () => nowIso(d.deps), newId: () => d.deps.ids.next(), logger: d.deps.logger,
  });
  const controller = new ControllerKind(calls, destinations, locks, claims, { stateOf: async (id) => (await d.deps.repos.backups.findById(id))?.state, teamsIn }, {
    hostOf: async (nodeId) => {
      const node = await d.deps.repos.nodes.findById(nodeId);
      return node ? reachAddressOf(node.address, node.status.observedAddress) : '';
    },
    logger: d.deps.logger,
    count: (path, bytes) => reads.emit(path, bytes),
  });
  const runner = new BackupRunner(d.deps, destinations, { NODE_DIRECTORY: nodeDirectory, CONTROLLER: controller, S3: controller }, (nodeId) => nodeReady(d.fleet, nodeId, backupDeadlines.nodeReadyMs));
  const removal = new BackupRemoval(d.deps, destinations, nodeDirectory, controller);
  const handoff = new BackupHandoff(runner, d.deps.repos.backups, d.deps.logger, d.holder);
  const backups = new BackupService(d.deps, d.access, d.servers, destinations, runner, removal, handoff);
  const schedules = new BackupSchedules(d.deps, d.access, d.audit, d.servers, destinations, backups, removal, runner, d.serverChanges);
  const scheduler = new BackupScheduler(d.deps.repos, d.deps.clock, d.timers ?? processTimers, d.deps.logger, (s) => schedules.fire(s), d.followEveryMs);
  schedules.attach(scheduler);
  return {
    destinations, runner, removal, backups, schedules, handoff, reads,
    /**
     * The built-in destination; when this Controller is `alone` on its store, interrupted work
     * settled (the leftovers of backups cut off collected) and queued backups resumed. With others
     * on the store they may be writing into the same destinations now: each Node's backups are
     * settled by its holder instead (HolderWork), and leftovers go with the later collections.
     * Missed schedules run when the schedules' job starts.
     */
    async start(alone: boolean): Promise<void> {
      await destinations.ensureBuiltin();
      if (!alone) return;
      await runner.recover();
      for (const destination of await d.deps.repos.backupDestinations.find({ kind: 'CONTROLLER' })) await controller.collect(destination, 0);
      // S3 may be unreachable at start; the Controller starts anyway and the next prune collects it.
      for (const destination of await d.deps.repos.backupDestinations.find({ kind: 'S3' })) {
        await controller.collect(destination, 0).catch((err: unknown) => d.deps.logger.warn({ err, destinationId: destination._id }, 'an S3 destination could not be collected at start'));
      }
    },
    /** The fleet-wide job of backup schedules: every schedule armed, those missed run once. */
    job: { start: () => scheduler.start(), stop: () => Promise.resolve(scheduler.stop()) },
    stop(): void {
      scheduler.stop();
      runner.stop();
    },
  };
}

export type BackupServices = ReturnType<typeof createBackupServices>;
