/** The resource names of leases: one per Node, one per running Controller. */
export const nodeResource = (nodeId: string): string => `node:${nodeId}`;
export const controllerResource = (controllerId: string): string => `controller:${controllerId}`;
export const nodeOfResource = (resource: string): string | undefined => (resource.startsWith('node:') ? resource.slice(5) : undefined);

/** How many Nodes one Controller aims to hold: an equal share, rounded up so the shares cover the fleet. */
export const fairShare = (nodes: number, liveControllers: number): number => Math.ceil(nodes / Math.max(1, liveControllers));

/** A small stable hash of a Controller's id, so each starts its claims at its own place in the list. */
function offsetOf(seed: string, length: number): number {
  let h = 0;
  for (let i = 0; i < seed.length; i++) h = (h * 31 + seed.charCodeAt(i)) >>> 0;
  return length === 0 ? 0 : h % length;
}

/**
 * The free Nodes (no live lease) to claim this tick: up to the share minus what is held, nothing
 * at or above it. Each Controller walks the sorted list from its own offset, so two claiming at
 * once mostly reach for different Nodes first (the store settles the rest: one of them wins).
 */
export function nodesToClaim(free: readonly string[], held: number, share: number, seed: string): string[] {
  const room = share - held;
  if (room <= 0 || free.length === 0) return [];
  const sorted = [...free].sort();
  const start = offsetOf(seed, sorted.length);
  return [...sorted.slice(start), ...sorted.slice(0, start)].slice(0, room);
}
