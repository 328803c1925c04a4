import { join } from 'node:path';
import type { Logger } from '../../shared/logger.js';
import { sleepMarkersIn } from './sleep-marker.js';
import { SleeperPool } from './sleeper-pool.js';

/**
 * The Node's sleeping ports, answered again at the Agent's start from the servers' markers, before
 * it enrolls or hears its Controller: a login meanwhile is kept and wakes the server once its runner
 * takes the port over.
 */
export async function openSleepingPorts(dataDir: string, logger: Logger): Promise<SleeperPool> {
  const pool = new SleeperPool(logger);
  const markers = await sleepMarkersIn(join(dataDir, 'servers'));
  for (const [serverId, marker] of markers) {
    pool.open(serverId, { since: marker.since, port: marker.port, host: marker.host, status: marker.status, wakeOnJoin: marker.wakeOnJoin });
  }
  await pool.bound();
  if (markers.size > 0) logger.info({ event: 'sleeping_ports', servers: markers.size, sinceProcessStartMs: Math.round(performance.now()) }, 'sleeping servers\' ports answered');
  return pool;
}
