import { deriveConvergence } from '../../domain/convergence.js';
import { explainCrashLoop, type LastCrash } from '../../domain/last-crash.js';
import { holdsStaleSecret, restartPending } from '../../domain/network.js';
import { explainPortInUse } from '../../domain/port-in-use.js';
import type { PortRange } from '../../../shared/link/messages.js';
import type { StatusCondition } from '../../domain/status.js';
import type { Shared } from '../../store/collection.js';
import type { ServerDoc } from '../../store/records.js';

/** Conditions the Controller itself raises, beside the Agent's. */
function controllerConditions(doc: Shared<ServerDoc>, nodeConnected: boolean): StatusCondition[] {
  const conditions: StatusCondition[] = [];
  if (doc.phase === 'FAILED') {
    conditions.push({ id: `${doc._id}:workflow-failed`, source: 'CONTROLLER', reason: doc.failureReason ?? 'WORKFLOW_FAILED', message: doc.failure ?? 'The last workflow failed.', since: doc.updatedAt });
  }
  if (doc.workflowFailure) {
    const f = doc.workflowFailure;
    conditions.push({ id: f.id, source: 'CONTROLLER', reason: f.reason, message: f.message, since: f.at });
  }
  if (doc.nodeId && !nodeConnected) {
    conditions.push({ id: `${doc._id}:node-unreachable`, source: 'CONTROLLER', reason: 'NODE_UNREACHABLE', message: 'The server\'s Node cannot be heard; its state is unknown.', since: doc.updatedAt });
  }
  return conditions;
}

/** The workflow as the API shows it: kind, start, step and, for a migration, where the server goes and how its files go. */
const workflowView = (w: NonNullable<ServerDoc['workflow']>) =>
  ({ kind: w.kind, startedAt: w.startedAt, step: w.step, ...(w.targetNodeId ? { targetNodeId: w.targetNodeId } : {}), ...(w.copyPath ? { copyPath: w.copyPath } : {}) });

export function serverConditions(doc: Shared<ServerDoc>, nodeConnected: boolean): Shared<StatusCondition>[] {
  return [...doc.observed.conditions, ...controllerConditions(doc, nodeConnected)];
}

/** How many conditions `serverConditions` would list, without building them (a page counts fifty). */
function conditionCount(doc: Shared<ServerDoc>, nodeConnected: boolean): number {
  return doc.observed.conditions.length + (doc.phase === 'FAILED' ? 1 : 0) + (doc.workflowFailure ? 1 : 0) + (doc.nodeId && !nodeConnected ? 1 : 0);
}

/**
 * One server in a list. Optional fields are left undefined when absent (JSON leaves them out),
 * not spread in: one object shape, built fifty times a page.
 */
export function serverListItem(doc: Shared<ServerDoc>, nodeConnected: boolean) {
  return {
    id: doc._id,
    name: doc.name,
    teamId: doc.teamId,
    nodeId: doc.nodeId || undefined,
    kind: doc.kind,
    inNetwork: doc.desired.inNetwork,
    desiredState: doc.desired.state,
    generation: doc.generation,
    phase: doc.phase,
    runtimeState: doc.observed.runtimeState || undefined,
    convergence: deriveConvergence({
      nodeConnected, phase: doc.phase, generation: doc.generation, desiredState: doc.desired.state, observed: doc.observed,
    }),
    software: doc.desired.software,
    resources: doc.desired.resources,
    gamePort: doc.gamePort || undefined,
    conditionCount: conditionCount(doc, nodeConnected),
    playersOnline: doc.observed.players?.online,
    sleeping: doc.observed.sleeping ? true as const : undefined,
  };
}

export type ServerListItemView = ReturnType<typeof serverListItem>;

/**
 * The server as GET /servers/{id} shows it; `lastCrash` is what the Node's Agent last reported,
 * `noPortLeft` the Node's range when the server's held port could not be left (both memory only).
 */
export function serverDetail(doc: ServerDoc, nodeConnected: boolean, lastCrash?: LastCrash, noPortLeft?: PortRange) {
  const conditions = explainPortInUse(explainCrashLoop(serverConditions(doc, nodeConnected), lastCrash), noPortLeft);
  return {
    ...serverListItem(doc, nodeConnected),
    observedGeneration: doc.observed.observedGeneration,
    ports: doc.gamePort ? [{ name: 'game', protocol: 'TCP' as const, hostPort: doc.gamePort }] : [],
    restartPolicy: doc.desired.restartPolicy,
    ...(doc.desired.sleep ? { sleep: doc.desired.sleep } : {}),
    ...(doc.desired.egressAllow?.length ? { network: { egressAllow: doc.desired.egressAllow } } : {}),
    conditions,
    acknowledgedConditions: doc.desired.acknowledgedConditions,
    markers: restartPending({
      desiredState: doc.desired.state, desiredInNetwork: doc.desired.inNetwork, runtimeState: doc.observed.runtimeState, startedInNetwork: doc.observed.startedInNetwork,
    }) || holdsStaleSecret({ ...doc.observed, staleSecretProcess: doc.staleSecretProcess }) ? ['RESTART_PENDING' as const] : [],
    status: {
      ...(doc.observed.runtimeState ? { runtimeState: doc.observed.runtimeState } : {}),
      usage: doc.observed.usage,
      conditions,
      ...(doc.observed.startedAt ? { startedAt: doc.observed.startedAt } : {}),
      ...(doc.observed.pid ? { pid: doc.observed.pid } : {}),
      ...(lastCrash ? { lastCrash } : {}),
      ...(doc.observed.players ? { players: doc.observed.players } : {}),
      ...(doc.observed.sleeping ? { sleeping: true as const, sleepingSince: doc.observed.sleeping.since } : {}),
    },
    ...(doc.workflow ? { workflow: workflowView(doc.workflow) } : {}),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

/**
 * The list item last built for a stored document, and the Node connection it was built with. A
 * shared document is never changed in place (a write stores a new one), so while both hold, the
 * item is the same; pages reuse it rather than build it again (reading fifty documents of as many
 * shapes was most of a page's own cost). Items only ever go out as JSON; nothing changes them.
 */
const builtItems = new WeakMap<Shared<ServerDoc>, { nodeConnected: boolean; item: ServerListItemView }>();

/** List items for one page of servers: each Node's connection looked up once, not once per server. */
export function pageItemsOf(isConnected: (nodeId: string) => boolean): (doc: Shared<ServerDoc>) => ServerListItemView {
  const known = new Map<string, boolean>();
  const connected = (nodeId: string) => known.get(nodeId) ?? known.set(nodeId, isConnected(nodeId)).get(nodeId)!;
  return (doc) => {
    const nodeConnected = doc.nodeId ? connected(doc.nodeId) : false;
    const built = builtItems.get(doc);
    if (built?.nodeConnected === nodeConnected) return built.item;
    const item = serverListItem(doc, nodeConnected);
    builtItems.set(doc, { nodeConnected, item });
    return item;
  };
}
