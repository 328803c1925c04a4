import type { Phase, Reservation, ServerObserved } from './server-spec.js';

export interface PlacementCandidate {
  nodeId: string;
  acceptsPlacements: boolean;
  allocatable: Reservation;
  reserved: Reservation;
  /** The majors of the Java installations the Node's Agent found. */
  javaMajors?: readonly number[];
}

export const fits = (free: Reservation, request: Reservation) =>
  request.cpuMillis <= free.cpuMillis && request.memoryBytes <= free.memoryBytes;

export const freeOf = (c: Pick<PlacementCandidate, 'allocatable' | 'reserved'>): Reservation => ({
  cpuMillis: c.allocatable.cpuMillis - c.reserved.cpuMillis,
  memoryBytes: c.allocatable.memoryBytes - c.reserved.memoryBytes,
});

/**
 * Best fit: among Nodes that accept placements and have room for both CPU and memory (never
 * overcommitting either), the one left with the least spare capacity, measured as the larger of
 * its two remaining fractions, so small servers fill up Nodes before large ones need them.
 * Ties go to the lower Node id, so placement is deterministic.
 */
function bestFitOf(candidates: readonly PlacementCandidate[], request: Reservation): string | undefined {
  let best: { nodeId: string; score: number } | undefined;
  for (const c of candidates) {
    if (!c.acceptsPlacements) continue;
    const free = freeOf(c);
    if (!fits(free, request)) continue;
    const score = Math.max(
      (free.cpuMillis - request.cpuMillis) / Math.max(1, c.allocatable.cpuMillis),
      (free.memoryBytes - request.memoryBytes) / Math.max(1, c.allocatable.memoryBytes),
    );
    if (!best || score < best.score || (score === best.score && c.nodeId < best.nodeId)) best = { nodeId: c.nodeId, score };
  }
  return best?.nodeId;
}

export const hasJava = (c: Pick<PlacementCandidate, 'javaMajors'>, minimum: number) => (c.javaMajors ?? []).some((major) => major >= minimum);

/**
 * The best fit (above) among the Nodes that have a Java of at least `javaMinimum`, when any of
 * those can take the server; else among all. A preference, not a filter: a Node without the Java
 * refuses the start (RUNTIME_MISSING) until one is installed there, which beats no placement at all.
 */
export function bestFit(candidates: readonly PlacementCandidate[], request: Reservation, javaMinimum?: number): string | undefined {
  if (javaMinimum !== undefined) {
    const withJava = bestFitOf(candidates.filter((c) => hasJava(c, javaMinimum)), request);
    if (withJava !== undefined) return withJava;
  }
  return bestFitOf(candidates, request);
}

/** The lowest port of the range not in use; undefined when the range is exhausted. */
export function pickPort(range: { first: number; last: number }, inUse: ReadonlySet<number>): number | undefined {
  for (let port = range.first; port <= range.last; port++) if (!inUse.has(port)) return port;
  return undefined;
}

/** What keeps a game port from being given on a host. */
export interface PortsTaken {
  /** Held by servers on the host (or by migrations coming to it). */
  servers: Iterable<number>;
  /** Known to be held by other programs there. */
  foreign: Iterable<number>;
  /** The network's port, kept free on every host so the proxy can always be placed or moved there. */
  network?: number;
}

/** The lowest port of the range that nothing in `taken` holds; undefined when none is left. */
export const freeGamePort = (range: { first: number; last: number }, taken: PortsTaken): number | undefined =>
  pickPort(range, new Set([...taken.servers, ...taken.foreign, ...(taken.network === undefined ? [] : [taken.network])]));

/**
 * Whether the server keeps room on its Node. One whose install failed, with nothing installed,
 * keeps none until POST /servers/{id}/reinstall places it again: a download that never worked must
 * not keep every other server off the Node.
 */
export const holdsRoom = (s: { phase: Phase; failureReason?: string; observed: Pick<ServerObserved, 'installed'> }) =>
  !(s.phase === 'FAILED' && s.failureReason === 'INSTALL_FAILED' && !s.observed.installed);

export const sumReservations = (reservations: readonly Reservation[]): Reservation => reservations.reduce(
  (sum, r) => ({ cpuMillis: sum.cpuMillis + r.cpuMillis, memoryBytes: sum.memoryBytes + r.memoryBytes }),
  { cpuMillis: 0, memoryBytes: 0 },
);
