import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import type { DesiredServer } from '../../../shared/link/messages.js';
import type { Logger } from '../../../shared/logger.js';
import type { AgentSessions } from '../../link/session-registry.js';
import type { PluginInstallationDoc, ServerDoc } from '../../store/records.js';
import type { Repositories } from '../../store/repositories.js';
import type { TemplateCatalog } from '../../adapters/software/template-catalog.js';
import type { NetworkState } from '../network/network-state.js';
import type { DesiredChanges } from '../../core/desired-changes.js';
import { desiredEntryFor, desiredStateOf, type DesiredServerEntry } from './desired-state.js';
import { toLinkDesired, toLinkPlugins } from './wire.js';
import { Listeners } from '../../../shared/listeners.js';

/** The plugin jars installed on the given servers (the plugins capability's records). */
export type InstalledPlugins = (serverIds: string[]) => Promise<PluginInstallationDoc[]>;

/** Hears a desired-state send that could not be made (its plugins or network could not be read). */
export type SendFailureListener = (nodeId: string, err: unknown) => void;

/** What the sender uses of the link: the Agent's ask for its full state in, desired state out. */
type DesiredLink = Pick<AgentSessions, 'onFullStateWanted' | 'isConnected' | 'sendDesiredState' | 'sendDesiredChange' | 'acceptsChanges'>;

/**
 * How a desired change reaches the Agent. Desired state goes out one server at a time (whole on
 * connect, on the Agent's request, and to Agents that take no changes), one load-and-send per Node
 * at a time, so a quick series of changes cannot arrive out of order and a change is never older
 * than the full state before it. A send that fails (its plugins or network could not be read) is
 * logged and counted, and a failed change is followed by the Node's full state.
 */
export class DesiredSender implements DesiredChanges {
  private readonly sends = new KeyedMutex();
  private readonly failureListeners = new Listeners<Parameters<SendFailureListener>>();

  constructor(
    private readonly agents: DesiredLink,
    private readonly repos: Repositories,
    private readonly templates: TemplateCatalog,
    private readonly installedPlugins: InstalledPlugins,
    private readonly network: NetworkState,
    private readonly logger: Logger,
  ) {
    agents.onFullStateWanted((nodeId) => this.sendFull(nodeId));
  }

  desiredStateChanged(nodeId: string, servers?: readonly ServerDoc[]): void {
    this.sends.run(nodeId, async () => {
      // Not connected here (another Controller drives it, or its Agent is away): it is sent its full state when it connects, read then.
      if (!this.agents.isConnected(nodeId)) return;
      if (!servers || !this.agents.acceptsChanges(nodeId)) {
        this.agents.sendDesiredState(nodeId, await this.fullStateOf(nodeId));
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

  /** Loads and sends the Node's full desired state, in order with the changes sent to it; rejects when it cannot be loaded. */
  private sendFull(nodeId: string): Promise<void> {
    return this.sends.run(nodeId, async () => {
      this.agents.sendDesiredState(nodeId, await this.fullStateOf(nodeId));
    });
  }

  private async fullStateOf(nodeId: string): Promise<DesiredServer[]> {
    return this.toLink(await desiredStateOf(this.repos, nodeId));
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
