import type { ServerDesired, ServerKind, ServerSleep } from '../../domain/server-spec.js';
import type { ServerDoc } from '../../store/records.js';
import type { Repositories } from '../../store/repositories.js';

/** One server as its Node must run it. */
export interface DesiredServerEntry {
  serverId: string;
  kind: ServerKind;
  generation: number;
  desired: ServerDesired;
  gamePort?: number;
  /** The server's `sleep`, unless a workflow runs on it (none sleeps or wakes by itself under one). */
  sleep?: ServerSleep;
}

/**
 * The full desired state of a Node: every server placed on it, those being deleted included, and
 * the servers a migration has it remove (shown DELETED until the Node reports them removed).
 */
export async function desiredStateOf(repos: Repositories, nodeId: string): Promise<DesiredServerEntry[]> {
  // Two indexed reads: an $or is a scan of every server in the embedded store, at every Agent's connect.
  const [placed, leaving] = await Promise.all([repos.servers.find({ nodeId }), repos.servers.find({ 'workflow.removeOnNodeId': nodeId })]);
  const servers = new Map([...placed, ...leaving].map((s) => [s._id, s]));
  return [...servers.values()].sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0)).map((s) => entryOf(s, nodeId));
}

/** One server as the Node must run it, from the record just written; null when the server is not the Node's (any more). */
export function desiredEntryFor(server: ServerDoc, nodeId: string): DesiredServerEntry | null {
  if (server.nodeId !== nodeId && server.workflow?.removeOnNodeId !== nodeId) return null;
  return entryOf(server, nodeId);
}

function entryOf(s: ServerDoc, nodeId: string): DesiredServerEntry {
  const entry = { serverId: s._id, kind: s.kind, generation: s.generation };
  if (s.nodeId !== nodeId) return { ...entry, desired: { ...s.desired, state: 'DELETED' as const } };
  return {
    ...entry,
    // A workflow's hold keeps the server stopped on its Node without changing what is desired.
    desired: s.workflow?.hold && s.desired.state === 'RUNNING' ? { ...s.desired, state: 'STOPPED' as const } : s.desired,
    ...(s.gamePort ? { gamePort: s.gamePort } : {}),
    ...(s.desired.sleep && !s.workflow ? { sleep: s.desired.sleep } : {}),
  };
}
