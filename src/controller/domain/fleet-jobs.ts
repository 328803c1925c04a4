import { fairShare, nodesToClaim } from './lease-share.js';

/** The jobs that must run once per fleet, whichever Controllers share the store. */
export const fleetJobNames = ['task-schedules', 'backup-scheduler', 'webhook-deliveries', 'audit-prune', 'catalog-sync', 'software-sync'] as const;
export type FleetJobName = (typeof fleetJobNames)[number];

const prefix = 'fleet:';
export const jobResource = (job: FleetJobName): string => `${prefix}${job}`;
export const jobOfResource = (resource: string): FleetJobName | undefined => {
  const name = resource.startsWith(prefix) ? resource.slice(prefix.length) : undefined;
  return (fleetJobNames as readonly string[]).includes(name ?? '') ? (name as FleetJobName) : undefined;
};

/**
 * The free jobs (no live lease) to claim this tick: the jobs are spread like Nodes, each live
 * Controller aiming for an equal share from its own place in the list, so two Controllers starting
 * together split them and one alone takes them all.
 */
export function jobsToClaim(free: readonly FleetJobName[], held: number, liveControllers: number, seed: string): FleetJobName[] {
  return nodesToClaim(free, held, fairShare(fleetJobNames.length, liveControllers), seed) as FleetJobName[];
}
