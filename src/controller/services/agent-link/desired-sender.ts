import { defaultGamePorts } from '../../../shared/game-ports.js';
import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import type { DesiredServer } from '../../../shared/link/messages.js';
import type { Logger } from '../../../shared/logger.js';
import type { NodeFleet, NodeState } from '../../actors/fleet.js';
import type { AgentSessions } from '../../link/session-registry.js';
import type { PluginInstallationDoc, ServerDoc } from '../../store/records.js';
import type { Repositories } from '../../store/repositories.js';
import type { TemplateCatalog } from '../../adapters/software/template-catalog.js';
import type { NetworkState } from '../network/network-state.js';
import type { NodeGateway, NodeInfo } from '../../core/node-gateway.js';
import { desiredEntryFor, desiredStateOf, type DesiredServerEntry } from './desired-state.js';
import { toLinkDesired, toLinkPlugins } from './wire.js';
import { Listeners } from '../../../shared/listeners.js';

const info = (s: NodeState): NodeInfo => ({
  nodeId: s.nodeId,
  acceptsPlacements: s.acceptsPlacements,
  allocatable: { cpuMillis: s.status.allocatable.cpuMillis, memoryBytes: s.status.allocatable.memoryBytes },
  hostname: s.status.hostname,
  gamePorts: s.status.gamePorts ?? defaultGamePorts,
  javaMajors: (s.status.runtimes ?? []).filter((r) => r.name === 'java').map((r) => r.major),
});

/** The plugin jars installed on the given servers (the plugins capability's records). */
export type InstalledPlugins = (serverIds: string[]) => Promise<PluginInstallationDoc[]>;

/** Hears a desired-state send that could not be made (its plugins or network could not be read). */
export type SendFailureListener = (nodeId: string, err: unknown) => void;

/**
 * How a desired change reaches the Agent. Servers' view of the Nodes, over the Node actors and
 * the Agent sessions. Desired state goes out one server at a time (whole on connect, on the
 * Agent's request, and to Agents that take no changes), one load-and-send per Node at a time, so
 * a quick series of changes cannot arrive out of order and a change is never older than the full
 * state before it. A send that fails (its plugins or network could not be read) is logged and
 * counted, and a failed change is followed by the Node's full state.
 */
export class FleetNodeGateway implements NodeGateway {
  private readonly sends = new KeyedMutex();
  private readonly failureListeners = new Listeners<Parameters<SendFailureListener>>();

  constructor(
    private readonly fleet: NodeFleet,
    private readonly agents: AgentSessions,
    private readonly repos: Repositories,
    private readonly templates: TemplateCatalog,
    private readonly installedPlugins: InstalledPlugins,
    private readonly network: NetworkState,
    private readonly logger: Logger,
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

  desiredStateChanged(nodeId: string, servers?: readonly ServerDoc[]): void {
    this.sends.run(nodeId, async () => {
      if (!servers || !this.agents.acceptsChanges(nodeId)) {
        this.agents.sendDesiredState(nodeId, await this.desiredFor(nodeId));
        return;
      }
      for (const server of servers) {
        const entry = desiredEntryFor(server, nodeId);
        this.agents.sendDesiredChange(nodeId, server._id, entry ? (await this.toLink([entry]))[0] : null);
      }
    }).catch((err: unknown) => {
      this.logger.error({ err, nodeId, serverIds: servers?.map((s) => s._id) }, 'a desired-state change could not be sent; sending the Node its full state instead');
      this.failureListeners.emit(nodeId, err);
      // Nothing went out, so the Agent sees no gap to ask about: the full state is what keeps it from missing the change.
      this.sendFull(nodeId).catch((fullErr: unknown) => {
        this.logger.error({ err: fullErr, nodeId }, 'the full desired state could not be sent either; the Node gets it when it next connects or asks');
        this.failureListeners.emit(nodeId, fullErr);
      });
    });
  }

  onSendFailed(listener: SendFailureListener): () => void {
    return this.failureListeners.add(listener);
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
