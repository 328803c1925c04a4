import type { DesiredPlugin } from '../../shared/link/messages.js';

/** One server as the Controller wants it run on this Node (from the link's desired state). */
export interface DesiredServer {
  serverId: string;
  generation: number;
  state: 'RUNNING' | 'STOPPED' | 'DELETED';
  software: { template: string; version: string; build?: string };
  resources: { cpuMillis: number; memoryBytes: number };
  gamePort: number;
  inNetwork: boolean;
  restartPolicy: { maxRestarts: number; windowSeconds: number };
  acknowledgedConditions: string[];
  restartNonce: number;
  /** Installed plugin jars, put in `plugins/` at each start; a change waits for the next start. */
  plugins?: DesiredPlugin[];
}

/** What a running process was started from; a change to it needs a restart to apply. */
export interface AppliedSpec {
  software: DesiredServer['software'];
  resources: DesiredServer['resources'];
  gamePort: number;
  restartNonce: number;
  inNetwork: boolean;
}

export const appliedFrom = (d: DesiredServer): AppliedSpec => ({
  software: d.software, resources: d.resources, gamePort: d.gamePort, restartNonce: d.restartNonce, inNetwork: d.inNetwork,
});

/** Changes that restart a running server at once (resources, software, port, an explicit restart). */
export function needsRestart(applied: AppliedSpec, desired: DesiredServer): boolean {
  const next = appliedFrom(desired);
  return JSON.stringify({ ...applied, inNetwork: null }) !== JSON.stringify({ ...next, inNetwork: null });
}

/** Changes that wait for the next start (network membership). */
export const pendingAtNextStart = (applied: AppliedSpec | undefined, desired: DesiredServer) =>
  applied !== undefined && applied.inNetwork !== desired.inNetwork;
