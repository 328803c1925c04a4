import type { AuditScope } from '../../core/audit-scope.js';
import type { ServerDoc } from '../../store/records.js';
import { defaultRestartPolicy, emptyObserved, type ServerDesired, type ServerKind } from '../../domain/server-spec.js';
import { sleepOf } from '../../domain/server-refusals.js';
import type { TemplateCatalog } from '../../adapters/software/template-catalog.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import type { ServerAggregate } from './aggregate.js';
import type { ChangeOptions, CreateServerInput } from './inputs.js';
import type { PlacementTurn } from './placement-turn.js';
import { ServerNames } from './server-names.js';

/** A new server as its creator checked it: what POST /servers and POST /network/proxy share. */
type PlacedServerInput = Omit<CreateServerInput, 'teamId'> & { inNetwork: boolean };

/**
 * A new server placed (on `port` when given, else on a free game port of the Node chosen), named
 * in its team, stored and told to its Node: game servers and the network's proxy alike. With
 * `dryRun`, the record as it would be, nothing stored.
 */
export class ServerCreation {
  private readonly names: ServerNames;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly servers: ServerAggregate,
    private readonly placing: PlacementTurn,
    private readonly templates: TemplateCatalog,
  ) {
    this.names = new ServerNames(deps.repos);
  }

  /** `team` is resolved once the server is placed: a team made for it is not made for a refused server. */
  async place(kind: ServerKind, input: PlacedServerInput, team: () => Promise<string>, port: number | undefined, audit: AuditScope, { dryRun = false }: ChangeOptions = {}): Promise<ServerDoc> {
    return this.placing.run(async (room) => {
      const nodeId = await room.place(input.resources, input.nodeId, port, this.templates.javaMinimum(input.software));
      const gamePort = port ?? (await room.allocatePort(nodeId));
      const teamId = await team();
      const nameKey = await this.names.vacant(teamId, input.name);
      const at = nowIso(this.deps);
      const id = this.deps.ids.next();
      const desired: ServerDesired = {
        state: 'STOPPED',
        software: input.software,
        resources: input.resources,
        inNetwork: input.inNetwork,
        ...(input.network?.egressAllow.length ? { egressAllow: input.network.egressAllow } : {}),
        restartPolicy: input.restartPolicy ?? defaultRestartPolicy,
        acknowledgedConditions: [],
        restartNonce: 0,
        ...(input.sleep ? { sleep: sleepOf(input.sleep)! } : {}),
      };
      const server = { _id: id, name: input.name, nameKey, teamId, nodeId, kind, gamePort, observed: emptyObserved(), createdAt: at, updatedAt: at };
      const doc = await this.servers.add(server, desired, dryRun).catch((e: unknown) => {
        throw ServerNames.refusal(e, input.name);
      });
      if (!dryRun) audit.target(id).detail({ nodeId, gamePort });
      return doc;
    });
  }
}
