import { join } from 'node:path';
import { NodeFleet, type TimerClock } from '../actors/fleet.js';
import { ServerFleet } from '../actors/server-fleet.js';
import { defaultNodeTimings, type NodeTimings } from '../actors/node-machine.js';
import type { LeaseTiming } from '../domain/lease-timing.js';
import { AgentSessions } from '../link/session-registry.js';
import { ArtifactStore } from '../adapters/software/artifact-store.js';
import type { TemplateCatalog } from '../adapters/software/template-catalog.js';
import { Access } from './identity/access.js';
import { AccessEvents } from './identity/access-events.js';
import { AuditService } from './audit/audit.js';
import { LoginFailureLog } from './audit/login-failures.js';
import { AuditRetention } from './audit/audit-retention.js';
import { AuthService } from './identity/auth.js';
import { OidcAccounts } from './identity/oidc-accounts.js';
import { OidcClients } from './identity/oidc-client.js';
import { OidcLogin } from './identity/oidc-login.js';
import { OidcSettings } from './identity/oidc-settings.js';
import { OidcStanding } from './identity/oidc-standing.js';
import { createBackupServices } from './backups/index.js';
import { processTimers, type ScheduleTimers } from '../core/schedule-timers.js';
import { ConsoleHub } from './console/console-hub.js';
import { ConsoleService } from './console/console.js';
import { ArchiveDownloads } from './files/archive-download.js';
import { ArchiveJobs } from './files/archive-jobs.js';
import { UploadSessionService } from './files/upload-sessions.js';
import { FileChangesUnderWay } from './files/file-changes.js';
import { FileService } from './files/files.js';
import { SftpAccess } from './files/sftp-access.js';
import { SshKeyService } from './identity/ssh-keys.js';
import { NodeCalls } from '../link/node-calls.js';
import { LinkForward } from '../link/link-forward.js';
import { ReportsHeard } from './workflows/reports-heard.js';
import { WorkflowHandoff } from './workflows/workflow-handoff.js';
import { HolderHandoff } from './leases/holder-handoff.js';
import { PeerHttp } from '../link/peer-http.js';
import { InternalTokens } from '../security/internal-token.js';
import { loadInternalKey } from './leases/internal-key.js';
import { StoredHolderRoutes } from './leases/holder-routes.js';
import { RemoteConsole } from './console/remote-console.js';
import { HolderSide } from './console/holder-side.js';
import { PropertiesService } from './files/properties.js';
import { ReconcileTimer } from './servers/reconcile-timer.js';
import { CatalogService, type CatalogOptions } from './plugins/catalog.js';
import { SoftwareArtifacts } from './software/software-artifacts.js';
import { SoftwareService, type SoftwareOptions } from './software/software.js';
import { LauncherPins } from './software/launcher-pins.js';
import { InstallerRuns } from './software/installer-runs.js';
import { ModpackService } from './software/modpacks.js';
import { TemplateVersions } from './software/template-versions.js';
import { defaultUpstreamBases } from '../adapters/software/upstream-sources.js';
import { nowIso, type ServiceDeps } from './deps.js';
import { NetworkRoutePush } from './network/route-push.js';
import { ForwardingSecret } from './network/forwarding-secret.js';
import { NetworkState } from './network/network-state.js';
import { NetworkService } from './network/network.js';
import { ProxyServer } from './network/proxy-server.js';
import { SecretRotation } from './network/secret-rotation.js';
import { NodeEnrollment } from './nodes/enrollment.js';
import { FleetNodeDirectory } from './nodes/node-directory.js';
import { StoredNodes } from './nodes/stored-nodes.js';
import { NodeService } from './nodes/nodes.js';
import { ClusterService } from './nodes/cluster.js';
import { clusterMembership } from './leases/cluster-membership.js';
import { HolderWork } from './leases/holder-work.js';
import { FleetJobs } from './leases/fleet-jobs.js';
import { PluginService } from './plugins/plugins.js';
import { RoleService } from './identity/roles.js';
import { DesiredSender } from './agent-link/desired-sender.js';
import { ServerCensus } from './servers/census.js';
import { ServerUsageService } from './servers/usage.js';
import { ServerPlacements } from './placement/placements.js';
import { ServerPortMoves } from './servers/port-moves.js';
import { SleepAudit } from './servers/sleep-audit.js';
import { ServerReports } from './servers/status-reports.js';
import { ServerChangeHub } from './servers/change-hub.js';
import { ServerWatchStream } from './servers/watch-stream.js';
import { ServerWatchFeed } from './servers/watch-feed.js';
import { ServerService } from './servers/servers.js';
import { ServerAggregate } from './servers/aggregate.js';
import { PlacementTurn } from './servers/placement-turn.js';
import { ServerRoom } from './servers/room.js';
import { ServerCreation } from './servers/server-creation.js';
import { SessionService, defaultSessionPolicy, type SessionPolicy } from './identity/sessions.js';
import { SetupService } from './identity/setup.js';
import { StreamGuards } from './identity/stream-guard.js';
import { TeamService } from './identity/teams.js';
import { TemplateService } from './servers/templates.js';
import { TokenService } from './identity/tokens.js';
import { TotpFactor } from './identity/totp-factor.js';
import { TotpService } from './identity/totp.js';
import { UnlockService } from './identity/unlock.js';
import { UserService } from './identity/users.js';
import type { MigrationTimings } from './workflows/migrate/migration-context.js';
import type { UpdateTimings } from './workflows/update/update-run.js';
import { createWorkflowServices } from './workflows/index.js';
import { createNotificationServices } from './notifications/index.js';
import { createScheduleServices } from './schedules/index.js';

/** Node heartbeat timings, the timer clock of the Node actors and the leases' timing (`--lease-ttl-seconds`); tests shorten or simulate them. */
export interface NodeRuntimeDeps {
  nodeTimings?: NodeTimings;
  leaseTiming?: LeaseTiming;
  nodeTimerClock?: TimerClock;
}

/** How long migrations wait on Nodes (tests shorten it). */
export interface MigrationDeps {
  migrationTimings?: MigrationTimings;
  updateTimings?: UpdateTimings;
}

/** What the timers of backup schedules, server schedules and streams' periodic access re-checks run on; tests pass a clock they move. */
export interface BackupRuntimeDeps {
  scheduleTimers?: ScheduleTimers;
}

/** Days audit events are kept (default 365; 0 keeps them forever). */
export interface AuditRetentionDeps {
  auditRetentionDays?: number;
}

/** `--allow-private-webhooks`: webhooks may post to loopback, link-local and private addresses. */
export interface NotificationOptionDeps {
  allowPrivateWebhooks?: boolean;
}

/** Single sign-on: the Controller's public address (`--public-url`) and how long a provider's word holds (`--oidc-recheck-seconds`). */
/** With TLS: the CA the Controllers' one certificate is checked against when one forwards to another. */
export interface PeerDeps {
  peerTls?: { ca: Buffer };
}

export interface OidcDeps {
  oidc?: { publicUrl?: string; recheckSeconds?: number };
}

/** Where the plugin catalog comes from and how often it syncs (default: Modrinth and Hangar, hourly). */
export interface CatalogDeps {
  catalog?: Partial<CatalogOptions>;
}

/** Where upstream versions come from (default: the vendors) and how often they sync (default: every 6 hours). */
export interface SoftwareDeps {
  software?: Partial<SoftwareOptions>;
}

/**
 * Every service of the Controller, built once from shared deps. Each gets what it uses through
 * its constructor, so this function is the whole graph.
 */
export function createServices(deps: ServiceDeps & { templates: TemplateCatalog } & NodeRuntimeDeps & CatalogDeps & SoftwareDeps & MigrationDeps & BackupRuntimeDeps & AuditRetentionDeps & OidcDeps & NotificationOptionDeps & PeerDeps, sessionPolicy: SessionPolicy = defaultSessionPolicy) {
  const access = new Access(deps.repos);
  // Who may still see what: services that end or narrow a caller's access say so; open streams re-check.
  const accessEvents = new AccessEvents();
  const audit = new AuditService(deps, (caller) => access.requireGlobalAdmin(caller));
  // Single sign-on: the provider's setting, sign-in through it, and the provider's word renewed for sessions and tokens.
  const oidcClients = new OidcClients();
  const oidcSettings = new OidcSettings(deps, access, oidcClients, accessEvents);
  const oidcAccounts = new OidcAccounts(deps, accessEvents);
  const oidcStanding = new OidcStanding(deps, oidcSettings, oidcClients, oidcAccounts, accessEvents, audit, deps.oidc?.recheckSeconds);
  const sessions = new SessionService(deps, accessEvents, sessionPolicy, oidcStanding);
  const tokens = new TokenService(deps, accessEvents, access, oidcStanding);
  const oidcLogin = new OidcLogin(deps, oidcSettings, oidcClients, oidcAccounts, sessions, oidcStanding, deps.oidc?.publicUrl);
  const streamGuards = new StreamGuards(accessEvents, sessions, tokens, deps.repos, deps.scheduleTimers ?? processTimers, deps.logger);
  const roles = new RoleService(deps, access, accessEvents);
  const loginFailures = new LoginFailureLog(deps, audit);
  const totpFactor = new TotpFactor(deps);
  const placements = new ServerPlacements(deps.repos);
  // Nodes: the actors and their read view, the Controller's handle on connected Agents, and the enrollment gate.
  const fleet = new NodeFleet({ ...deps, timings: deps.nodeTimings ?? defaultNodeTimings, timerClock: deps.nodeTimerClock });
  // What Agents send is published by `agents` and subscribed to below by the services it is for; desired state goes out through it.
  const agents = new AgentSessions(deps.logger);
  const enrollment = new NodeEnrollment(deps, fleet, audit);
  // The jobs run once per fleet (schedules, syncs, pruning, webhook sending): all here on the embedded store, by lease on MongoDB.
  const byLease = deps.repos.kind !== 'embedded';
  const fleetJobs = new FleetJobs(byLease, deps.logger);
  // Which Nodes this Controller drives: all of them on the embedded store, those whose lease it holds on MongoDB.
  const cluster = clusterMembership({ ...deps, fleet, agents, jobs: fleetJobs });
  // Nodes another Controller drives are read as their holders stored them: any Controller places on and shows every Node.
  const storedNodes = new StoredNodes(deps.repos, cluster, deps.logger);
  const nodeDirectory = new FleetNodeDirectory(fleet, cluster, storedNodes);
  const nodes = new NodeService(deps, access, fleet, agents, enrollment, placements, cluster);
  const teams = new TeamService(deps, access, roles, placements, accessEvents);
  // Servers: one actor each, placed on Nodes, told to Agents, watched by SRE tooling.
  const serverWatch = new ServerChangeHub();
  const forwardingSecret = new ForwardingSecret(deps);
  const networkState = new NetworkState(deps.repos, fleet, forwardingSecret);
  const desiredSender = new DesiredSender(agents, deps.repos, deps.templates, (serverIds) => deps.repos.pluginInstallations.find({ serverId: { $in: serverIds } }), networkState, deps.logger);
  // The aggregate is what every capability changes servers through; the API's use cases are `ServerService`.
  const serverAggregate = new ServerAggregate(deps, access, new ServerFleet(), nodeDirectory, desiredSender, serverWatch, fleet);
  const placing = new PlacementTurn(new ServerRoom(deps.repos, nodeDirectory, placements, serverAggregate.portRefusals));
  const serverCreation = new ServerCreation(deps, serverAggregate, placing, deps.templates);
  const servers = new ServerService(deps, access, serverAggregate, deps.templates, nodeDirectory, placing, serverCreation);
  const serverWatchFeed = new ServerWatchStream(serverWatch, serverAggregate.listItem, access, deps, streamGuards, accessEvents);
  // With several Controllers on one database, the watch hears the others' changes through the store, and the holder of a server's Node sends them on to it.
  const drivesNode = (nodeId: string) => cluster.termFor(nodeId) !== undefined;
  const readServer = (serverId: string) => deps.repos.servers.findById(serverId);
  // A workflow waiting on a Node another Controller drives hears its reports through the records that Controller writes.
  const reportsHeard = new ReportsHeard(agents, readServer, drivesNode, deps.logger);
  const serverFeed = new ServerWatchFeed(deps.repos.serverFeed, serverWatchFeed, async (heard) => {
    try {
      await serverAggregate.heardRemote(heard.serverId, [heard.change.event === 'server' ? heard.change.data.nodeId : undefined, heard.removeOnNodeId], drivesNode);
    } finally {
      await reportsHeard.changedElsewhere(heard.serverId);
    }
  }, deps);
  // The network: its proxy's routes follow every server and Node change that shapes them.
  const routePush = new NetworkRoutePush(networkState, desiredSender, serverWatch, fleet, deps.logger);
  const serverReports = new ServerReports(deps, serverAggregate, new ServerPortMoves(deps, serverAggregate, placing, audit), new SleepAudit(audit));
  agents.onServerReport(serverReports.heard);
  // What the metrics read: servers counted by state when scraped, and each desired change timed until its Agent reports it.
  const serverCensus = new ServerCensus(deps.repos, (nodeId) => nodeDirectory.isConnected(nodeId));
  const reconcileTimer = new ReconcileTimer();
  serverWatch.subscribe((change) => reconcileTimer.changed(change));
  agents.onServerReport((nodeId, report) => reconcileTimer.reported(nodeId, report));
  // File changes through the API under way: refused while files move, and awaited by a workflow before its files are replaced or last copied.
  const fileChanges = new FileChangesUnderWay();
  // Operating a server through its Agent: console, files, server.properties, usage history.
  // A Node another Controller drives is asked through that Controller, with a token signed by the key shared in the store.
  const internalTokens = new InternalTokens(cluster.controllerId, () => loadInternalKey(deps.repos.settings, deps.secrets, nowIso(deps)));
  const holderRoutes = new StoredHolderRoutes(cluster, deps.repos, deps.clock);
  const peers = new PeerHttp(internalTokens, deps.peerTls);
  const linkForward = new LinkForward(holderRoutes, peers);
  // Backups and workflows asked through a Controller that does not drive their Node go to the one that does.
  const holderHandoff = new HolderHandoff(holderRoutes, peers, deps.logger, drivesNode);
  const nodeCalls = new NodeCalls(agents, linkForward);
  const consoleHub = new ConsoleHub(agents, nodeCalls, deps.logger);
  // Plugins: the synced catalog, installations per server, and the jars Nodes fetch.
  const catalog = new CatalogService(deps, access, { source: deps.catalog?.source, bases: deps.catalog?.bases, syncIntervalMs: deps.catalog?.syncIntervalMs ?? 60 * 60 * 1000, followEveryMs: byLease ? 60_000 : undefined });
  const artifactStore = new ArtifactStore(join(deps.dataDir, 'artifacts'), deps.logger, deps.repos.sharedArtifacts());
  const software = new SoftwareService(deps, access, deps.templates, { bases: deps.software?.bases ?? defaultUpstreamBases, syncIntervalMs: deps.software?.syncIntervalMs ?? 6 * 60 * 60 * 1000, followEveryMs: byLease ? 60_000 : undefined }, new LauncherPins(deps, artifactStore), new InstallerRuns(deps, artifactStore, deps.software?.installer));
  const modpacks = new ModpackService(deps, artifactStore, deps.templates, { base: (deps.software?.bases ?? defaultUpstreamBases).modrinth });
  const plugins = new PluginService(deps, serverAggregate, catalog, deps.templates, desiredSender, artifactStore, serverWatch);
  // Backups: destinations, manual and scheduled backups.
  const backups = createBackupServices({ deps, access, audit, servers: serverAggregate, agents, fleet, serverChanges: serverWatch, timers: deps.scheduleTimers, followEveryMs: byLease ? 2000 : undefined, cluster, holder: byLease ? holderHandoff : undefined, forward: byLease ? linkForward : undefined });
  // Workflows of servers, on one runner: migrations (and drains), restores, software updates.
  const workflows = createWorkflowServices({
    deps, access, servers: serverAggregate, placing, templates: deps.templates, nodes, fleet, agents, forward: linkForward, reports: reportsHeard, drives: drivesNode, directory: nodeDirectory, desired: desiredSender, serverChanges: serverWatch, backups, catalog,
    artifacts: plugins.artifacts, fileChanges, reconnectGraceMs: (deps.nodeTimings ?? defaultNodeTimings).unreachableAfterMs,
    migrationTimings: deps.migrationTimings, updateTimings: deps.updateTimings,
  });
  // A workflow begun here on a Node another Controller drives runs there, the holder's work like the Node's other work.
  if (byLease) workflows.runner.handOffWith(new WorkflowHandoff(holderHandoff, readServer));
  const consoleService = new ConsoleService(serverAggregate, nodeCalls, consoleHub, access, streamGuards, new RemoteConsole(holderRoutes, peers));
  // Schedules: tasks on a clock, acting as their editor through the same services as requests, stopped with the workflows.
  const schedules = createScheduleServices({
    deps, access, audit, aggregate: serverAggregate, servers, console: consoleService, backups, serverChanges: serverWatch, workflows: workflows.runner,
    timers: deps.scheduleTimers ?? processTimers, cluster, followEveryMs: byLease ? 2000 : undefined,
  });
  // Notifications: webhooks hearing the events of servers, backups, workflows, schedules and Nodes.
  const notifications = createNotificationServices({
    deps, access, teams, allowPrivate: deps.allowPrivateWebhooks ?? false,
    feeds: { reports: agents, serverChanges: serverWatch, workflows: workflows.runner.outcomes, backups: backups.runner, schedules: schedules.runs, fleet },
  });
  const auditRetention = new AuditRetention(deps, deps.auditRetentionDays ?? 365, deps.scheduleTimers ?? processTimers);
  fleetJobs.register('task-schedules', schedules.job);
  // Work a stopped Controller left (backups cut off, workflows under way) is settled by its Nodes' next holder on MongoDB.
  const holderWork = new HolderWork({ backups: backups.runner, workflows: workflows.runner }, deps.logger);
  if (byLease) holderWork.follow(cluster);
  fleetJobs.register('backup-scheduler', byLease ? holderWork.withUnplaced(backups.job) : backups.job);
  fleetJobs.register('webhook-deliveries', notifications.job);
  fleetJobs.register('audit-prune', { start: () => Promise.resolve(auditRetention.start()), stop: () => auditRetention.stop() });
  fleetJobs.register('catalog-sync', catalog.job);
  fleetJobs.register('software-sync', software.job);
  const auth = new AuthService(deps, sessions, tokens, access, loginFailures, totpFactor, oidcSettings);
  const totp = new TotpService(deps, access, totpFactor, sessions);
  return {
    deps,
    sessionPolicy,
    access,
    cluster,
    clusterView: new ClusterService(access, cluster),
    sessions,
    tokens,
    auth,
    totp,
    unlock: new UnlockService(deps, access, auth, totp),
    sshKeys: new SshKeyService(deps, access),
    sftp: new SftpAccess(deps, access, auth, serverAggregate, servers),
    oidc: { settings: oidcSettings, login: oidcLogin },
    loginFailures,
    setup: new SetupService(deps, sessions),
    users: new UserService(deps, access, accessEvents),
    roles,
    teams,
    audit,
    auditRetention,
    fleetJobs,
    fleet,
    agents,
    nodeDirectory,
    storedNodes,
    desiredSender,
    enrollment,
    nodes,
    servers,
    serverAggregate,
    serverWatch: serverWatchFeed,
    serverFeed,
    serverReports,
    serverCensus,
    reconcileTimer,
    workflows: workflows.runner,
    migrations: workflows.migrations,
    migrationCopies: workflows.copies,
    drain: workflows.drain,
    network: new NetworkService(
      deps, access, networkState, serverAggregate, new ProxyServer(deps, serverAggregate, placing, serverCreation, deps.templates), teams, routePush,
      new SecretRotation(deps, forwardingSecret, serverAggregate, serverWatch, deps.logger),
    ),
    forwardingSecret,
    templates: new TemplateService(deps.templates),
    software,
    modpacks,
    templateVersions: new TemplateVersions(deps.templates, software, modpacks),
    consoleHub,
    console: consoleService,
    internalTokens,
    holderSide: new HolderSide(agents, cluster, consoleHub, deps.repos),
    files: new FileService(serverAggregate, nodeCalls, deps.templates, fileChanges),
    archiveJobs: new ArchiveJobs(serverAggregate, nodeCalls, fileChanges),
    archiveDownloads: new ArchiveDownloads(serverAggregate, nodeCalls),
    uploadSessions: new UploadSessionService(serverAggregate, nodeCalls, fileChanges),
    properties: new PropertiesService(serverAggregate, nodeCalls, deps.templates, fileChanges),
    usage: new ServerUsageService(serverAggregate, nodeCalls),
    catalog,
    plugins,
    /** What Nodes may fetch over the link: plugin jars, then server software. */
    artifacts: new SoftwareArtifacts(deps, deps.templates, plugins.artifacts, plugins),
    backups,
    restore: workflows.restore,
    updates: workflows.updates,
    schedules,
    notifications,
  };
}

export type Services = ReturnType<typeof createServices>;
