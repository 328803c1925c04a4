import type { AddressInfo } from 'node:net';
import { systemClock, uuidV7Ids, type Clock, type IdGenerator } from '../shared/clock.js';
import { createLogger, type Logger } from '../shared/logger.js';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { ensurePrivateDir, tightenTree } from '../shared/private-dir.js';
import { cairnVersion } from '../shared/version.js';
import type { NodeTimings } from './actors/node-machine.js';
import { ConfigError, type ControllerConfig } from './program/config.js';
import { dialAddress, dialHost, LocalAgent } from './program/local-agent.js';
import { createHttpApp, type UploadSettings } from './http/app.js';
import { listenHttp } from './http/listen.js';
import { HttpDrain, type DrainReport } from './http/drain.js';
import { createMetrics } from './metrics/registry.js';
import { registerServerMetrics } from './metrics/server-metrics.js';
import { createWorkflowMetrics } from './metrics/workflow-metrics.js';
import { createMigrationCopyMetrics } from './metrics/migration-copy-metrics.js';
import { allRoutes } from './http/routes/index.js';
import { answerClientErrors } from './http/client-errors.js';
import { advertisedAgentLink } from './link/advertised-link.js';
import { AgentLinkServer } from './link/agent-link.js';
import { createLinkMetrics } from './metrics/link-metrics.js';
import { isLoopbackHost } from './link/loopback.js';
import { registerDesiredSendMetrics } from './metrics/desired-send-metrics.js';
import { registerBackupMetrics } from './metrics/backup-metrics.js';
import { registerNotificationMetrics } from './metrics/notification-metrics.js';
import { registerScheduleMetrics } from './metrics/schedule-metrics.js';
import type { ScheduleTimers } from './core/schedule-timers.js';
import { createServices, type Services } from './services/index.js';
import type { MigrationTimings } from './services/workflows/migrate/migration-context.js';
import type { SessionPolicy } from './services/identity/sessions.js';
import { openStore } from './store/open-store.js';
import { refusePortInUse } from './program/port-in-use.js';
import type { Repositories } from './store/repositories.js';
import { TemplateCatalog } from './adapters/software/template-catalog.js';
import { loadControllerTls, localAgentTlsName } from './program/tls.js';
import { SecretBox } from './security/secret-box.js';
import { startSftp } from './program/sftp.js';
import { registerSftpMetrics } from './metrics/sftp-metrics.js';
import { registerLeaseMetrics } from './metrics/lease-metrics.js';
import { agentSilenceLimitMs } from './domain/lease-timing.js';

export interface ControllerOptions {
  config: ControllerConfig;
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
  sessionPolicy?: SessionPolicy;
  /** Fail requests whose answers do not match their schemas (tests turn this on). */
  checkResponses?: boolean;
  /** Heartbeat interval and the DEGRADED/UNREACHABLE timeouts (tests shorten them). */
  nodeTimings?: NodeTimings;
  /** How long migrations wait on Nodes (tests shorten them). */
  migrationTimings?: MigrationTimings;
  /** What backup schedules' timers run on (tests pass a clock they move). */
  scheduleTimers?: ScheduleTimers;
  /** Upload slots and the body-silence deadline (tests shorten them). */
  uploads?: Partial<UploadSettings>;
}

export interface RunningController {
  httpPort: number;
  grpcPort: number;
  /** Undefined while SFTP is off (`--sftp-port off`). */
  sftpPort?: number;
  /** Where a browser opens the web UI, and where Agents dial the link (as this Controller knows them). */
  webUrl: string;
  grpcAddress: string;
  /** Set while no user exists: where the one-time setup code was written. */
  setupCodeFile?: string;
  services: Services;
  repos: Repositories;
  /** The Agent started by `--local-agent`, if any. */
  localAgent?: LocalAgent;
  /**
   * The graceful stop: HTTP drains first (streams end, requests finish, the Agent link still up
   * for their uploads), then background work, the local Agent, the link, the actors, the store.
   */
  close(): Promise<DrainReport>;
}

/** Where the others reach this one's API (forwarded requests): the advertised link's host, else --host, with the HTTP port. */
function advertisedHttp(advertiseAddress: string | undefined, host: string, httpPort: number): string {
  return advertiseAddress ? `${advertiseAddress.replace(/:\d+$/, '')}:${httpPort}` : dialAddress(host, httpPort);
}

/** Builds and starts a whole Controller: store, services, HTTP. No work happens at import time. */
export async function startController(options: ControllerOptions): Promise<RunningController> {
  const { config } = options;
  const logger = options.logger ?? createLogger('cairn-controller');
  const clock = options.clock ?? systemClock;
  // Templates first: a bad template file stops the start before anything is opened.
  const templates = await TemplateCatalog.load(config.templatesDir);
  const tls = await loadControllerTls(config);
  // An Agent runs what its templates say: a link anyone on the network can answer or read is refused unless asked for.
  if (!tls && !isLoopbackHost(config.host) && !config.insecureLink) {
    throw new ConfigError(`--host ${config.host} reaches beyond this machine: the Agent link and the API need TLS there (--tls-cert and --tls-key), or --insecure-link to accept plaintext on a private network`);
  }
  const looseMode = await ensurePrivateDir(config.dataDir);
  if (looseMode !== undefined) {
    const was = looseMode.toString(8).padStart(4, '0');
    logger.warn({ event: 'data_dir_tightened', dataDir: config.dataDir, mode: was }, `the data dir ${config.dataDir} was mode ${was}; narrowed it to 0700 so no other user can read the store`);
  }
  // The store's files of an earlier version were 0644; a data dir that was open has everything in it narrowed.
  const narrowed = await tightenTree(looseMode === undefined ? join(config.dataDir, 'store') : config.dataDir);
  if (narrowed > 0) logger.warn({ event: 'data_files_tightened', dataDir: config.dataDir, entries: narrowed }, `narrowed ${narrowed} files and directories of the data dir to 0600/0700`);
  const repos = await openStore({
    dataDir: config.dataDir, mongodbUri: config.mongodbUri, clock,
    onRepair: (repair) => logger.warn({ event: 'store_repaired', ...repair }, `Store file ${repair.file} repaired at load: dropped ${repair.dropped}`),
  });
  const secrets = await SecretBox.fromFile(config.secretsKeyFile);
  const peerTls = tls && { ca: await readFile(tls.caFile) };
  const services = createServices({ repos, clock, ids: options.ids ?? uuidV7Ids, logger, dataDir: config.dataDir, secrets, templates, nodeTimings: options.nodeTimings, leaseTiming: config.leaseTiming, migrationTimings: options.migrationTimings, scheduleTimers: options.scheduleTimers, auditRetentionDays: config.auditRetentionDays, catalog: { source: config.catalogSource, bases: config.softwareSources, syncIntervalMs: config.catalogSyncMinutes * 60_000 }, software: { bases: config.softwareSources, installer: { java: config.installerJava, deadlineMs: config.installerTimeoutMs } }, oidc: { publicUrl: config.publicUrl, recheckSeconds: config.oidcRecheckSeconds }, allowPrivateWebhooks: config.allowPrivateWebhooks, peerTls }, options.sessionPolicy);
  // Before anything changes a server: every change of this Controller is shared with the others on the store.
  await services.serverFeed.start();
  await services.roles.seedBuiltins();
  const setupCodeFile = await services.setup.prepare();
  await services.nodes.start();
  services.storedNodes.start();
  await services.forwardingSecret.sealStored();
  await services.catalog.start();
  await services.fleetJobs.startHere('catalog-sync');
  await services.software.start();
  await services.fleetJobs.startHere('software-sync');
  await services.modpacks.start();
  await services.fleetJobs.startHere('audit-prune');

  const metrics = createMetrics(cairnVersion);
  createWorkflowMetrics(metrics.registry, services.workflows.outcomes);
  createMigrationCopyMetrics(metrics.registry, services.migrationCopies);
  registerServerMetrics(metrics.registry, { census: services.serverCensus, reconcile: services.reconcileTimer, console: services.consoleHub }, logger);
  registerBackupMetrics(metrics.registry, services.backups.runner, services.backups.reads);
  registerDesiredSendMetrics(metrics.registry, services.desiredSender);
  registerNotificationMetrics(metrics.registry, services.notifications.outbox);
  registerScheduleMetrics(metrics.registry, services.schedules.runs);
  registerSftpMetrics(metrics.registry, services.sftp);
  registerLeaseMetrics(metrics.registry, services.cluster);
  // Before anything that tells events (backups recovering, workflows resuming, Agents connecting) starts.
  await services.notifications.start();
  await services.fleetJobs.startHere('webhook-deliveries');
  // Alone on the embedded store, this Controller settles what its last run left; on MongoDB each Node's holder does (HolderWork).
  const alone = !services.fleetJobs.byLease;
  await services.backups.start(alone);
  await services.fleetJobs.startHere('backup-scheduler');
  // After the backups' own recovery: a workflow cut off during its PRE_RESTORE or PRE_UPDATE backup finds that backup settled.
  if (alone) await services.workflows.resume();
  // After the workflows' resumption: a run's `phase_busy` sees the servers they hold.
  await services.fleetJobs.startHere('task-schedules');
  const link = new AgentLinkServer({
    gate: services.enrollment, fleet: services.fleet, agents: services.agents, logger, clock, timings: services.fleet.timings,
    metrics: createLinkMetrics(metrics.registry, services.fleet, services.agents, () => clock.now().getTime()),
    artifacts: services.artifacts, ownership: services.cluster,
    silenceLimitMs: services.fleetJobs.byLease ? agentSilenceLimitMs(config.leaseTiming) : 0,
  });
  const grpcPort = await link.listen({ host: config.host, port: config.grpcPort, tls })
    .catch(refusePortInUse({ host: config.host, port: config.grpcPort, what: 'the Agent link', flag: '--grpc-port' }));
  if (!tls && !isLoopbackHost(config.host)) {
    logger.warn({ event: 'agent_link_plaintext', host: config.host }, 'The HTTP API and the Agent link listen beyond loopback without TLS (--insecure-link); give --tls-cert and --tls-key');
  }
  if (tls) logger.info({ event: 'tls', names: tls.names, validTo: tls.validTo }, 'HTTPS and the Agent link use TLS');
  logger.info({ event: 'grpc_listening', host: config.host, port: grpcPort, tls: tls !== undefined }, 'Agent link listening');
  const drain = new HttpDrain();
  const app = createHttpApp({
    drain, services, routes: allRoutes(services, advertisedAgentLink(config.host, grpcPort, tls !== undefined)), metrics, logger, version: cairnVersion,
    checkResponses: options.checkResponses ?? false, webDir: config.webDir, uploads: options.uploads, metricsToken: config.metricsToken, https: tls !== undefined, trustedProxies: config.trustedProxies,
    readiness: { pingStore: () => repos.ping(), agentLink: () => ({ listening: link.listening, agentsConnected: services.agents.connectedCount }) },
  });
  const http = await listenHttp(app, { host: config.host, port: config.httpPort, tls })
    .catch(refusePortInUse({ host: config.host, port: config.httpPort, what: 'the HTTP API', flag: '--http-port' }));
  answerClientErrors(http);
  const sftp = await startSftp(config, services, logger);
  const httpPort = (http.address() as AddressInfo).port;
  const webUrl = `${tls ? 'https' : 'http'}://${dialAddress(config.host, httpPort)}/`;
  logger.info({ event: 'http_listening', host: config.host, port: httpPort, store: repos.kind, webUrl }, `HTTP API listening; web UI at ${webUrl}`);
  // Once both listen: the others are told where this one is, and Agents that said hello wait until now.
  await services.cluster.start({ address: config.advertiseAddress ?? dialAddress(config.host, grpcPort), httpAddress: advertisedHttp(config.advertiseAddress, config.host, httpPort) });
  if (setupCodeFile) {
    logger.info({ event: 'setup_pending', setupCodeFile, webUrl }, `Setup pending: open ${webUrl} and enter the one-time setup code from ${setupCodeFile} (or send it with POST /api/v1/setup)`);
  }
  const localAgent = config.localAgent
    ? new LocalAgent({
      dataDir: config.dataDir, controllerAddress: dialAddress(config.host, grpcPort), gamePorts: config.localAgentGamePorts,
      tls: tls && { caFile: tls.caFile, name: localAgentTlsName(tls.cert, dialHost(config.host)) },
      nodes: services.nodes, enrollment: services.enrollment, audit: services.audit, logger,
    })
    : undefined;
  await localAgent?.start();

  return {
    httpPort,
    grpcPort,
    ...(sftp ? { sftpPort: sftp.port } : {}),
    webUrl,
    grpcAddress: dialAddress(config.host, grpcPort),
    ...(setupCodeFile ? { setupCodeFile } : {}),
    services,
    repos,
    localAgent,
    async close() {
      const report = await drain.drain(app, http, config.shutdownTimeoutMs);
      await sftp?.server.close();
      // Workflows stop where they are before the link goes: its closing must not look like a failure to roll back.
      await services.workflows.stop();
      // No fleet-wide job starts again here, whatever leases this Controller holds until it hands them back.
      await services.fleetJobs.close();
      await services.schedules.stop();
      await services.notifications.stop();
      services.catalog.stop();
      services.software.stop();
      services.backups.stop();
      await services.auditRetention.stop();
      await services.loginFailures.stop();
      // Its games run under their own supervisors and keep running.
      await localAgent?.stop();
      await link.close();
      services.storedNodes.stop();
      await services.nodes.stop();
      await services.serverFeed.stop();
      // After the last status write under them: the others claim the Nodes without waiting for expiry.
      await services.cluster.stop();
      services.serverAggregate.stop();
      await repos.close();
      return report;
    },
  };
}
