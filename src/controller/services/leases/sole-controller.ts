import type { Clock } from '../../../shared/clock.js';
import type { Admission } from '../../core/node-ownership.js';
import type { ClusterController } from '../../schemas/cluster.js';
import type { Repositories } from '../../store/repositories.js';
import type { FleetJobs } from './fleet-jobs.js';
import type { ClusterMembership, ControllerSelf } from './membership.js';

/**
 * The embedded store's Controller: the only one on its store, it drives every Node without a
 * lease (term 0, which Agents accept from it as always).
 */
export class SoleController implements ClusterMembership {
  readonly heldCount = 0;
  private self?: ControllerSelf;
  private readonly startedAt: string;

  constructor(readonly controllerId: string, private readonly repos: Repositories, private readonly clock: Clock, private readonly jobs?: FleetJobs) {
    this.startedAt = clock.now().toISOString();
  }

  start(self: ControllerSelf): Promise<void> {
    this.self = self;
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  termFor(): number {
    return 0;
  }

  admit(): Promise<Admission> {
    return Promise.resolve({ kind: 'mine', term: 0 });
  }

  holders(nodeIds: readonly string[]): Promise<Map<string, string>> {
    return Promise.resolve(new Map(nodeIds.map((id) => [id, this.controllerId])));
  }

  async controllers(): Promise<ClusterController[]> {
    const nodes = await this.repos.nodes.count({ enrolledAt: { $exists: true }, adminState: { $ne: 'REVOKED' } });
    return [{
      id: this.controllerId, address: this.self?.address ?? '', ...(this.self ? { httpAddress: this.self.httpAddress } : {}),
      startedAt: this.startedAt, lastSeenAt: this.clock.now().toISOString(), nodes, jobs: this.jobs?.held() ?? [],
    }];
  }

  onChange(): void {
    // The one Controller's share never changes.
  }
}
