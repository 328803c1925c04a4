import type { EgressRule } from '../../shared/egress-rule.js';
import type { DesiredPlugin, ServerNetwork } from '../../shared/link/messages.js';

/** What the reconciler converges one server towards: the link's DesiredServer, as running it needs it. */
export interface ServerTarget {
  serverId: string;
  generation: number;
  state: 'RUNNING' | 'STOPPED' | 'DELETED';
  software: { template: string; version: string; build?: string };
  resources: { cpuMillis: number; memoryBytes: number };
  /** The most the server's files may hold (`resources.diskBytes`); unset: no limit. Held against the files, never the process: no restart. */
  diskLimitBytes?: number;
  gamePort: number;
  inNetwork: boolean;
  restartPolicy: { maxRestarts: number; windowSeconds: number };
  acknowledgedConditions: string[];
  restartNonce: number;
  /** Installed plugin jars, put in `plugins/` (`mods/` on a mod loader) at each start; a change waits for the next start. */
  plugins?: DesiredPlugin[];
  /**
   * The proxy's routes and the forwarding secret (proxy and members). Not part of what a process
   * is started from: new routes are applied to a running proxy at once, without a restart.
   */
  network?: ServerNetwork;
  /** Where the game may connect beyond the Agent's own allowances (absent: nowhere more); the Node's rules alone: no restart. */
  egressAllow?: EgressRule[];
  /** Stop the game when nobody plays (absent: never; the Controller leaves it out while a workflow runs). Never a restart. */
  sleep?: { afterEmptySeconds: number; wakeOnJoin: boolean };
  /** Bumped by an explicit start of a sleeping server: it wakes. */
  wakeNonce: number;
}

/** What a running process was started from; a change to it needs a restart to apply. */
export interface AppliedSpec {
  software: ServerTarget['software'];
  resources: ServerTarget['resources'];
  gamePort: number;
  restartNonce: number;
  inNetwork: boolean;
}

export const appliedFrom = (d: ServerTarget): AppliedSpec => ({
  software: d.software, resources: d.resources, gamePort: d.gamePort, restartNonce: d.restartNonce, inNetwork: d.inNetwork,
});

/** Changes that restart a running server at once (resources, software, port, an explicit restart). */
export function needsRestart(applied: AppliedSpec, desired: ServerTarget): boolean {
  const next = appliedFrom(desired);
  return JSON.stringify({ ...applied, inNetwork: null }) !== JSON.stringify({ ...next, inNetwork: null });
}

