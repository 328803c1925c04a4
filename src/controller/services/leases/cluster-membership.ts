import type { Clock, IdGenerator } from '../../../shared/clock.js';
import type { Logger } from '../../../shared/logger.js';
import type { NodeFleet } from '../../actors/fleet.js';
import { defaultLeaseTiming, type LeaseTiming } from '../../domain/lease-timing.js';
import type { AgentSessions } from '../../link/session-registry.js';
import type { Repositories } from '../../store/repositories.js';
import type { FleetJobs } from './fleet-jobs.js';
import type { ClusterMembership } from './membership.js';
import { SharedStoreMembership } from './shared-store-membership.js';
import { SoleController } from './sole-controller.js';

/**
 * This Controller's membership: alone on the embedded store (which one process holds), one of
 * several on MongoDB. Its id is new at every start, so a restarted Controller never mistakes the
 * leases of its former self for its own.
 */
export function clusterMembership(deps: { repos: Repositories; clock: Clock; ids: IdGenerator; logger: Logger; fleet: NodeFleet; agents: AgentSessions; jobs: FleetJobs; leaseTiming?: LeaseTiming }): ClusterMembership {
  const id = deps.ids.next();
  return deps.repos.kind === 'embedded'
    ? new SoleController(id, deps.repos, deps.clock, deps.jobs)
    : new SharedStoreMembership(id, { ...deps, timing: deps.leaseTiming ?? defaultLeaseTiming });
}
