import { defaultGamePorts } from '../../shared/game-ports.js';
import { KeyedMutex } from '../../shared/keyed-mutex.js';
import type { DesiredPlugin, DesiredServer, LastCrash as LastCrashMessage, ServerNetwork, ServerStatus } from '../../shared/link/messages.js';
import type { NodeFleet, NodeState } from '../actors/fleet.js';
import type { LastCrash } from '../domain/last-crash.js';
import type { ServerRuntimeState } from '../domain/server-spec.js';
import type { AgentSessions } from '../link/session-registry.js';
import type { PluginInstallationDoc } from '../store/records.js';
import type { Repositories } from '../store/repositories.js';
import type { TemplateCatalog } from '../templates/template-catalog.js';
import type { NetworkState } from './network-state.js';
import type { NodeGateway, NodeInfo } from './node-gateway.js';
import { nodeFileNames } from './plugin-views.js';
import { desiredEntryOf, desiredStateOf, type DesiredServerEntry } from './server-desired.js';
import type { ServerReport } from './server-reports.js';

const info = (s: NodeState): NodeInfo => ({
  nodeId: s.nodeId,
  acceptsPlacements: s.acceptsPlacements,
  allocatable: { cpuMillis: s.status.allocatable.cpuMillis, memoryBytes: s.status.allocatable.memoryBytes },
  hostname: s.status.hostname,
  gamePorts: s.status.gamePorts ?? defaultGamePorts,
});

/** Each template's JSON, made once: every server of every connecting Node carries it (100,000 copies made per fleet start). */
const templateJsons = new WeakMap<object, string>();
const templateJsonOf = (template: object): string => templateJsons.get(template) ?? templateJsons.set(template, JSON.stringify(template)).get(template)!;

/** A server's desired spec as the link carries it, with its template so the Node needs no copy. */
export function toLinkDesired(entry: DesiredServerEntry, templates: TemplateCatalog, plugins: DesiredPlugin[] = [], network: ServerNetwork | null = null): DesiredServer {
  const { desired } = entry;
  const template = templates.get(desired.software.template);
  return {
    serverId: entry.serverId,
    generation: entry.generation,
    software: { template: desired.software.template, version: desired.software.version, build: desired.software.build ?? '' },
    resources: desired.resources,
    gamePort: entry.gamePort ?? 0,
    desiredState: `DESIRED_RUNTIME_STATE_${desired.state}`,
    restartPolicy: desired.restartPolicy,
    acknowledgedConditionIds: desired.acknowledgedConditions,
    inNetwork: desired.inNetwork,
    restartNonce: desired.restartNonce,
    templateJson: template ? templateJsonOf(template) : '',
    plugins,
    network,
  };
}

/** A server's installed plugins as the link carries them, each with its file name in `plugins/`. */
export function toLinkPlugins(installations: readonly PluginInstallationDoc[]): DesiredPlugin[] {
  const names = nodeFileNames(installations);
  return installations.map((d) => ({ installationId: d._id, fileName: names.get(d._id)!, sha256: d.sha256, sizeBytes: d.sizeBytes, pluginId: d.pluginId }));
}

export function fromLinkStatus(status: ServerStatus): ServerReport {
  const runtime = status.runtimeState.replace('RUNTIME_STATE_', '');
  return {
    serverId: status.serverId,
    observedGeneration: status.observedGeneration,
    ...(runtime !== 'UNSPECIFIED' ? { runtimeState: runtime as ServerRuntimeState } : {}),
    installed: status.installed,
    ...(status.installError ? { installError: status.installError } : {}),
    removed: status.removed,
    restarting: status.restarting,
    startedInNetwork: status.startedInNetwork,
    usage: {
      cpuMillis: status.usage?.cpuMillis ?? 0,
      memoryBytes: status.usage?.memoryBytes ?? 0,
      diskBytes: status.usage?.diskBytes ?? 0,
    },
    conditions: status.conditions.map((c) => ({ id: c.id, source: 'AGENT' as const, reason: c.reason, message: c.message, since: c.since })),
    ...(status.startedAt ? { startedAt: status.startedAt } : {}),
    ...(status.lastCrash ? { lastCrash: lastCrashOf(status.lastCrash) } : {}),
    ...(status.portInUse ? { portInUse: status.portInUse } : {}),
  };
}

const lastCrashOf = (crash: LastCrashMessage): LastCrash => ({
  at: crash.at,
  ...(crash.hasExitCode ? { exitCode: crash.exitCode } : {}),
  ...(crash.signal ? { signal: crash.signal } : {}),
  lastLines: crash.lastLines.slice(-20).map((line) => line.text),
});

/** The plugin jars installed on the given servers (the plugins capability's records). */
export type InstalledPlugins = (serverIds: string[]) => Promise<PluginInstallationDoc[]>;

/**
 * Servers' view of the Nodes, over the Node actors and the Agent sessions. Desired state goes out
 * one server at a time (whole on connect, on the Agent's request, and to Agents that take no
 * changes), one load-and-send per Node at a time, so a quick series of changes cannot arrive out
 * of order and a change is never older than the full state before it.
 */
export class FleetNodeGateway implements NodeGateway {
  private readonly sends = new KeyedMutex();

  constructor(
    private readonly fleet: NodeFleet,
    private readonly agents: AgentSessions,
    private readonly repos: Repositories,
    private readonly templates: TemplateCatalog,
    private readonly installedPlugins: InstalledPlugins,
    private readonly network: NetworkState,
  ) {}

  async get(nodeId: string): Promise<NodeInfo | undefined> {
    const state = this.fleet.state(nodeId);
    return state ? info(state) : undefined;
  }

  async list(): Promise<NodeInfo[]> {
    return this.fleet.states().map(info);
  }

  isConnected(nodeId: string): boolean {
    const state = this.fleet.connectionState(nodeId);
    return state === 'HEALTHY' || state === 'DEGRADED';
  }

  desiredFor = async (nodeId: string): Promise<DesiredServer[]> => this.toLink(await desiredStateOf(this.repos, nodeId));

  sendFull = (nodeId: string): Promise<void> => this.sends.run(nodeId, async () => {
    this.agents.sendDesiredState(nodeId, await this.desiredFor(nodeId));
  });

  desiredStateChanged(nodeId: string, serverIds?: readonly string[]): void {
    void this.sends.run(nodeId, async () => {
      if (!serverIds || !this.agents.acceptsChanges(nodeId)) {
        this.agents.sendDesiredState(nodeId, await this.desiredFor(nodeId));
        return;
      }
      for (const serverId of serverIds) {
        const entry = await desiredEntryOf(this.repos, nodeId, serverId);
        this.agents.sendDesiredChange(nodeId, serverId, entry ? (await this.toLink([entry]))[0] : null);
      }
    });
  }

  private async toLink(entries: DesiredServerEntry[]): Promise<DesiredServer[]> {
    const byServer = new Map<string, PluginInstallationDoc[]>();
    for (const installation of await this.installedPlugins(entries.map((e) => e.serverId))) {
      byServer.set(installation.serverId, [...(byServer.get(installation.serverId) ?? []), installation]);
    }
    const network = await this.network.forEntries(entries);
    return entries.map((e) => toLinkDesired(e, this.templates, toLinkPlugins(byServer.get(e.serverId) ?? []), network.get(e.serverId) ?? null));
  }
}
