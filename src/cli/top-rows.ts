import type { NodeInfo, ServerDetail, ServerItem } from './api-types.js';
import type { View } from './output.js';
import { humanBytes } from './quantity.js';
import type { Names } from './views.js';

/** One running server as `cairn top servers` shows it; `-o json|yaml` print these as they are. */
export interface ServerTop {
  name: string;
  node?: string;
  cpuMillis: number;
  cpuReservedMillis: number;
  memoryBytes: number;
  memoryReservedBytes: number;
  playersOnline?: number;
  playersMax?: number;
}

/** One Node as `cairn top nodes` shows it. */
export interface NodeTop {
  name: string;
  connection: NodeInfo['status']['connectionState'];
  cpuMillis: number;
  cpuAllocatableMillis: number;
  cpuReservedMillis: number;
  memoryBytes: number;
  memoryAllocatableBytes: number;
  memoryReservedBytes: number;
  servers: number;
  playersOnline?: number;
}

/** What kubectl top leaves out too: a server that is not running has no usage worth showing. */
export const isRunning = (s: Pick<ServerItem, 'runtimeState'>) => s.runtimeState === 'RUNNING' || s.runtimeState === 'STARTING';

export function serverTopOf(detail: ServerDetail, names: Pick<Names, 'node'>): ServerTop {
  const players = detail.status.players;
  const online = players?.online ?? detail.playersOnline;
  return {
    name: detail.name,
    ...(detail.nodeId === undefined ? {} : { node: names.node(detail.nodeId) }),
    cpuMillis: detail.status.usage.cpuMillis,
    cpuReservedMillis: detail.resources.cpuMillis,
    memoryBytes: detail.status.usage.memoryBytes,
    memoryReservedBytes: detail.resources.memoryBytes,
    ...(online === undefined ? {} : { playersOnline: online }),
    ...(players === undefined ? {} : { playersMax: players.max }),
  };
}

/** `servers`: the list items the caller can see, of every Node; those on `node` count toward it. */
export function nodeTopOf(node: NodeInfo, servers: ServerItem[]): NodeTop {
  const here = servers.filter((s) => s.nodeId === node.id);
  const known = here.flatMap((s) => (s.playersOnline === undefined ? [] : [s.playersOnline]));
  return {
    name: node.name,
    connection: node.status.connectionState,
    cpuMillis: node.status.usage.cpuMillis,
    cpuAllocatableMillis: node.status.allocatable.cpuMillis,
    cpuReservedMillis: node.reserved.cpuMillis,
    memoryBytes: node.status.usage.memoryBytes,
    memoryAllocatableBytes: node.status.allocatable.memoryBytes,
    memoryReservedBytes: node.reserved.memoryBytes,
    servers: here.length,
    ...(known.length === 0 ? {} : { playersOnline: known.reduce((a, b) => a + b, 0) }),
  };
}

export const sortKeys = ['cpu', 'memory', 'players', 'name'] as const;
export type SortKey = (typeof sortKeys)[number];

/** Busiest first (as kubectl top sorts), names A to Z; ties and unknown player counts fall back to the name. */
export function sortServerTops(rows: ServerTop[], by: SortKey): ServerTop[] {
  const measure: Record<Exclude<SortKey, 'name'>, (r: ServerTop) => number> = {
    cpu: (r) => r.cpuMillis,
    memory: (r) => r.memoryBytes,
    players: (r) => r.playersOnline ?? -1,
  };
  const byName = (a: ServerTop, b: ServerTop) => a.name.localeCompare(b.name);
  if (by === 'name') return [...rows].sort(byName);
  return [...rows].sort((a, b) => measure[by](b) - measure[by](a) || byName(a, b));
}

/** Thousandths of a core as cores, two decimals: 120 → `0.12`. */
export const cores = (millis: number) => (millis / 1000).toFixed(2);

/** A whole percentage of `of`; `-` when there is nothing to take a share of. */
export const percent = (part: number, of: number) => (of > 0 ? `${Math.round((part / of) * 100)}%` : '-');

const players = (online: number | undefined, max?: number) => (online === undefined ? '-' : max === undefined ? String(online) : `${online}/${max}`);

export const serverTopView: View<ServerTop> = {
  kind: 'server',
  plural: 'running servers',
  name: (r) => r.name,
  columns: [
    { header: 'NAME', value: (r) => r.name },
    { header: 'NODE', value: (r) => r.node },
    { header: 'CPU', value: (r) => `${cores(r.cpuMillis)}/${cores(r.cpuReservedMillis)}` },
    { header: 'MEMORY', value: (r) => `${humanBytes(r.memoryBytes)}/${humanBytes(r.memoryReservedBytes)}` },
    { header: 'PLAYERS', value: (r) => players(r.playersOnline, r.playersMax) },
  ],
};

/** CPU and MEMORY are what the host uses now; RESERVED-* what its servers reserve, of what it offers. */
export const nodeTopView: View<NodeTop> = {
  kind: 'node',
  plural: 'nodes',
  name: (r) => r.name,
  columns: [
    { header: 'NAME', value: (r) => r.name },
    { header: 'CONNECTION', value: (r) => r.connection },
    { header: 'CPU', value: (r) => cores(r.cpuMillis) },
    { header: 'CPU%', value: (r) => percent(r.cpuMillis, r.cpuAllocatableMillis) },
    { header: 'MEMORY', value: (r) => humanBytes(r.memoryBytes) },
    { header: 'MEMORY%', value: (r) => percent(r.memoryBytes, r.memoryAllocatableBytes) },
    { header: 'RESERVED-CPU', value: (r) => `${cores(r.cpuReservedMillis)}/${cores(r.cpuAllocatableMillis)}` },
    { header: 'RESERVED-MEMORY', value: (r) => `${humanBytes(r.memoryReservedBytes)}/${humanBytes(r.memoryAllocatableBytes)}` },
    { header: 'SERVERS', value: (r) => r.servers },
    { header: 'PLAYERS', value: (r) => players(r.playersOnline) },
  ],
};
