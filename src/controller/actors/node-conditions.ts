import type { StatusCondition } from '../domain/status.js';

/** A Node condition as the Agent reports it: the Controller adds where it came from. */
export type ReportedCondition = Omit<StatusCondition, 'source'>;

/** Conditions the Controller itself raises; ids are stable so `since` survives repeated reports. */
export const controllerConditions = {
  heartbeatMissed: { id: 'controller.heartbeat-missed', reason: 'HEARTBEAT_MISSED' },
  unreachable: { id: 'controller.unreachable', reason: 'NODE_UNREACHABLE' },
  draining: { id: 'controller.draining', reason: 'DRAINING' },
} as const;

/** Agent reasons ending in `_PRESSURE` (DISK_PRESSURE, MEMORY_PRESSURE, ...) degrade a Node; new ones need no code change. */
export const isPressure = (reason: string) => reason.endsWith('_PRESSURE');

/** Agent ids are namespaced so an Agent cannot shadow a Controller condition. */
export const agentConditionId = (agentId: string) => `agent.${agentId}`;

/** Adds or refreshes a condition, keeping the original `since` while it lasts. */
export function withCondition(list: readonly StatusCondition[], condition: StatusCondition): StatusCondition[] {
  const existing = list.find((c) => c.id === condition.id);
  if (!existing) return [...list, condition];
  return list.map((c) => (c.id === condition.id ? { ...condition, since: existing.since } : c));
}

export const withoutCondition = (list: readonly StatusCondition[], id: string): StatusCondition[] => list.filter((c) => c.id !== id);

/**
 * The Agent's conditions replace the previous set (an absent one has cleared), but a condition
 * the Agent keeps reporting keeps the `since` it was first seen with.
 */
export function mergeAgentConditions(
  previous: readonly StatusCondition[],
  reported: readonly ReportedCondition[],
  at: string,
): StatusCondition[] {
  return reported.map((r) => {
    const id = agentConditionId(r.id || r.reason);
    const before = previous.find((c) => c.id === id);
    return { id, source: 'AGENT', reason: r.reason, message: r.message, since: before?.since ?? (validIso(r.since) ? r.since : at) };
  });
}

const validIso = (s: string) => s !== '' && !Number.isNaN(Date.parse(s));

/** `iso` moved by `ms`; used for times derived from a timer (when a heartbeat went missing). */
export const isoPlus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
