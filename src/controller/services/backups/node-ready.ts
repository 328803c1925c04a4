import type { NodeFleet } from '../../actors/fleet.js';

const connected = (state: string | undefined) => state === 'HEALTHY' || state === 'DEGRADED';

/**
 * Resolves once the Node's Agent is connected, or after `timeoutMs` (the call that follows then
 * fails as the Node being unavailable). Backups queued or missed while the Controller was down
 * run at its start, before the Agents have reconnected.
 */
export function nodeReady(fleet: Pick<NodeFleet, 'state' | 'subscribe'>, nodeId: string, timeoutMs: number): Promise<void> {
  if (connected(fleet.state(nodeId)?.connectionState)) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      unsubscribe();
      resolve();
    };
    const timer = setTimeout(done, timeoutMs).unref();
    const unsubscribe = fleet.subscribe((state) => {
      if (state.nodeId === nodeId && connected(state.connectionState)) done();
    });
  });
}
