import type { AuditScope } from '../../core/audit-scope.js';
import { conflict } from '../../core/errors.js';
import { requireTemplateKind } from '../../domain/server-refusals.js';
import { serverName } from '../../domain/server-name.js';
import type { Reservation, ServerSoftware } from '../../domain/server-spec.js';
import type { ServerDoc } from '../../store/records.js';
import type { TemplateCatalog } from '../../adapters/software/template-catalog.js';
import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import type { ServerAggregate } from '../servers/aggregate.js';
import type { PlacementTurn } from '../servers/placement-turn.js';
import type { ServerCreation } from '../servers/server-creation.js';
import { chooseSoftware } from '../servers/software-choice.js';

/** The network's proxy, as POST /network/proxy creates it (the network service checks who may). */
export interface CreateProxyInput {
  name: string;
  /** The proxy's team, resolved once it is placed (a team made for it is not made for a refused proxy). */
  team: () => Promise<string>;
  software: ServerSoftware;
  resources: Reservation;
  nodeId?: string;
}

/**
 * The network's proxy as a server: placed, run and stopped like any other, on a Node with the
 * network's port free (its game port), never a member, and moved when the network's port moves.
 */
export class ProxyServer {
  private readonly creating = new KeyedMutex();

  constructor(
    private readonly deps: ServiceDeps,
    private readonly servers: ServerAggregate,
    private readonly placing: PlacementTurn,
    private readonly creation: ServerCreation,
    private readonly templates: TemplateCatalog,
  ) {}

  async create(raw: CreateProxyInput, port: number, audit: AuditScope) {
    const input = { ...raw, name: serverName(raw.name) };
    const { template, software } = await chooseSoftware(this.templates, input.software);
    requireTemplateKind(template.kind, 'PROXY');
    // One proxy per network: the check and the insert are one step, so two creates cannot both pass.
    return this.creating.run('proxy', async () => {
      const existing = await this.deps.repos.servers.findOne({ kind: 'PROXY' });
      if (existing) throw conflict(`The network has its proxy already (${existing.name}, ${existing._id}).`);
      return this.servers.detail(await this.creation.place('PROXY', { ...input, software, inNetwork: false }, input.team, port, audit));
    });
  }

  /**
   * The network's port changed: the proxy follows it (a new generation, so a running proxy
   * restarts on the new port). Refused while the proxy is busy, or when the port is taken on its host.
   */
  async movePort(proxy: ServerDoc, port: number): Promise<void> {
    await this.placing.run(async (room) => {
      const current = (await this.deps.repos.servers.findById(proxy._id)) ?? proxy;
      if (current.gamePort === port) return;
      const event = { type: 'UPDATE', at: nowIso(this.deps) } as const;
      this.servers.requireAccepts(current, event);
      if (current.nodeId && (await room.portsInUse(current.nodeId, current._id)).has(port)) throw conflict(`Port ${port} is taken on the proxy's host.`);
      await this.servers.apply({ ...current, gamePort: port }, event, undefined, { gamePort: port });
    });
  }
}
