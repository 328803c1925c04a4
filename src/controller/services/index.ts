import { join } from 'node:path';
import { NodeFleet, type TimerClock } from '../actors/fleet.js';
import { ServerFleet } from '../actors/server-fleet.js';
import { defaultNodeTimings, type NodeTimings } from '../actors/node-machine.js';
import { AgentSessions } from '../link/session-registry.js';
import { ArtifactStore } from '../plugins/artifact-store.js';
import type { TemplateCatalog } from '../templates/template-catalog.js';
import { Access } from './access.js';
import { AuditService } from './audit.js';
import { AuthService } from './auth.js';
import { ConsoleHub } from './console-hub.js';
import { ConsoleService } from './console.js';
import { FileService } from './files.js';
import { NodeCalls } from './node-calls.js';
import { PropertiesService } from './properties.js';
import { CatalogService, type CatalogOptions } from './catalog.js';
import type { ServiceDeps } from './deps.js';
import { NetworkService } from './network.js';
import { NodeEnrollment } from './node-enrollment.js';
import { NodeService } from './nodes.js';
import { PluginService } from './plugins.js';
import { RoleService } from './roles.js';
import { FleetNodeGateway, fromLinkStatus } from './server-link.js';
import { ServerReports } from './server-reports.js';
import { ServerWatchHub } from './server-watch.js';
import { ServerService } from './servers.js';
import { SessionService, defaultSessionPolicy, type SessionPolicy } from './sessions.js';
import { SetupService } from './setup.js';
import { TeamService } from './teams.js';
import { TemplateService } from './templates.js';
import { TokenService } from './tokens.js';
import { UserService } from './users.js';

/** Node heartbeat timings and the timer clock of the Node actors; tests shorten or simulate them. */
export interface NodeRuntimeDeps {
  nodeTimings?: NodeTimings;
  nodeTimerClock?: TimerClock;
}

/** Where the plugin catalog comes from and how often it syncs (default: the sample feed, hourly). */
export interface CatalogDeps {
  catalog?: Partial<CatalogOptions>;
}

/** Every service of the Controller, built once from shared deps. */
export function createServices(deps: ServiceDeps & { templates: TemplateCatalog } & NodeRuntimeDeps & CatalogDeps, sessionPolicy: SessionPolicy = defaultSessionPolicy) {
  const access = new Access(deps.repos);
  const sessions = new SessionService(deps, sessionPolicy);
  const roles = new RoleService(deps, access);
  const audit = new AuditService(deps, access);
  // Nodes: the actors, the Controller's handle on connected Agents, and the enrollment gate.
  const fleet = new NodeFleet({ ...deps, timings: deps.nodeTimings ?? defaultNodeTimings, timerClock: deps.nodeTimerClock });
  const agents = new AgentSessions(deps.logger);
  const enrollment = new NodeEnrollment(deps, fleet, audit);
  const nodes = new NodeService(deps, access, fleet, agents, enrollment);
  const teams = new TeamService(deps, access, roles);
  // Servers: one actor each, placed on Nodes, told to Agents, watched by SRE tooling.
  const serverWatch = new ServerWatchHub();
  const gateway = new FleetNodeGateway(fleet, agents, deps.repos, deps.templates);
  const servers = new ServerService(deps, access, new ServerFleet(), deps.templates, gateway, serverWatch);
  const serverReports = new ServerReports(deps, servers);
  connectServersToNodes({ servers, serverReports, serverWatch, gateway, nodes, fleet, agents, teams, deps });
  // Operating a server through its Agent: console, files, server.properties.
  const nodeCalls = new NodeCalls(agents);
  const consoleHub = new ConsoleHub(agents, nodeCalls, deps.logger);
  // Plugins: the synced catalog, installations per server, and the jars Nodes fetch.
  const catalog = new CatalogService(deps, access, { source: deps.catalog?.source, syncIntervalMs: deps.catalog?.syncIntervalMs ?? 60 * 60 * 1000 });
  const plugins = new PluginService(deps, servers, catalog, deps.templates, gateway, new ArtifactStore(join(deps.dataDir, 'artifacts'), deps.logger));
  gateway.setPluginSource((serverIds) => deps.repos.pluginInstallations.find({ serverId: { $in: serverIds } }));
  serverWatch.subscribe(({ doc, deleted }) => {
    if (deleted) plugins.forgetServer(doc._id).catch((err: unknown) => deps.logger.error({ err, serverId: doc._id }, 'removing a deleted server\'s plugins failed'));
  });
  return {
    deps,
    sessionPolicy,
    access,
    sessions,
    tokens: new TokenService(deps),
    auth: new AuthService(deps, sessions),
    setup: new SetupService(deps, sessions),
    users: new UserService(deps, access),
    roles,
    teams,
    audit,
    fleet,
    agents,
    enrollment,
    nodes,
    servers,
    serverReports,
    serverWatch,
    network: new NetworkService(deps, access),
    templates: new TemplateService(deps.templates),
    consoleHub,
    console: new ConsoleService(servers, nodeCalls, consoleHub),
    files: new FileService(servers, nodeCalls),
    properties: new PropertiesService(servers, nodeCalls),
    catalog,
    plugins,
  };
}

export type Services = ReturnType<typeof createServices>;

interface Wiring {
  servers: ServerService;
  serverReports: ServerReports;
  serverWatch: ServerWatchHub;
  gateway: FleetNodeGateway;
  nodes: NodeService;
  fleet: NodeFleet;
  agents: AgentSessions;
  teams: TeamService;
  deps: ServiceDeps;
}

/** The hooks between servers and Nodes, in one place: reservations, desired state, reports, deletion guards. */
function connectServersToNodes(w: Wiring): void {
  w.nodes.setReservationSource(async (nodeIds) => new Map(await Promise.all(nodeIds.map(async (id) => [id, await w.servers.reservedOn(id)] as const))));
  w.nodes.setTeamNodesSource(async (teamIds) => {
    const placed = await w.deps.repos.servers.find({ teamId: { $in: teamIds } });
    return [...new Set(placed.flatMap((s) => (s.nodeId ? [s.nodeId] : [])))];
  });
  w.nodes.onDeleteCheck(async (nodeId) => {
    const count = await w.deps.repos.servers.count({ nodeId });
    return count > 0 ? `${count} server(s) are placed on it` : undefined;
  });
  w.teams.onDeleteCheck((teamId) => w.servers.teamInUse(teamId));
  w.agents.setDesiredStateSource(w.gateway.desiredFor);
  w.agents.onServerStatus((nodeId, status) => {
    w.serverReports.apply(nodeId, fromLinkStatus(status)).catch((err: unknown) => w.deps.logger.error({ err, nodeId }, 'server report failed'));
  });
  // A Node heard again or lost changes its servers' convergence: tell the watchers.
  w.fleet.subscribe((state, previous) => {
    if (previous && previous.connectionState === state.connectionState) return;
    void w.deps.repos.servers.find({ nodeId: state.nodeId }).then((docs) => docs.forEach((doc) => w.servers.changed(doc)));
  });
}
