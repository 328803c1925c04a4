import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock, uuidV7Ids, type Clock, type IdGenerator } from '../shared/clock.js';
import { createLogger, type Logger } from '../shared/logger.js';
import { cairnVersion } from '../shared/version.js';
import type { NodeTimings } from './actors/node-machine.js';
import type { ControllerConfig } from './config.js';
import { dialAddress, LocalAgent } from './local-agent.js';
import { createHttpApp, type UploadSettings } from './http/app.js';
import { createMetrics } from './http/metrics.js';
import { registerServerMetrics } from './http/server-metrics.js';
import { createWorkflowMetrics } from './http/workflow-metrics.js';
import { allRoutes } from './http/routes/index.js';
import { answerClientErrors } from './http/client-errors.js';
import { advertisedAgentLink } from './link/advertised-link.js';
import { AgentLinkServer } from './link/agent-link.js';
import { createLinkMetrics } from './link/link-metrics.js';
import { isLoopbackHost } from './link/loopback.js';
import { registerBackupMetrics } from './services/backups/backup-metrics.js';
import type { ScheduleTimers } from './services/backups/scheduler.js';
import { createServices, type Services } from './services/index.js';
import type { MigrationTimings } from './services/migration-steps.js';
import type { SessionPolicy } from './services/sessions.js';
import { openStore } from './store/open-store.js';
import type { Repositories } from './store/repositories.js';
import { TemplateCatalog } from './templates/template-catalog.js';

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
  services: Services;
  repos: Repositories;
  /** The Agent started by `--local-agent`, if any. */
  localAgent?: LocalAgent;
  close(): Promise<void>;
}

/** Builds and starts a whole Controller: store, services, HTTP. No work happens at import time. */
export async function startController(options: ControllerOptions): Promise<RunningController> {
  const { config } = options;
  const logger = options.logger ?? createLogger('cairn-controller');
  const clock = options.clock ?? systemClock;
  // Templates first: a bad template file stops the start before anything is opened.
  const templates = await TemplateCatalog.load(config.templatesDir);
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const repos = await openStore({ dataDir: config.dataDir, mongodbUri: config.mongodbUri, clock });
  const services = createServices({ repos, clock, ids: options.ids ?? uuidV7Ids, logger, dataDir: config.dataDir, templates, nodeTimings: options.nodeTimings, migrationTimings: options.migrationTimings, scheduleTimers: options.scheduleTimers, catalog: { source: config.catalogSource, syncIntervalMs: config.catalogSyncMinutes * 60_000 } }, options.sessionPolicy);
  await services.roles.seedBuiltins();
  await services.setup.prepare();
  await services.nodes.start();
  await services.servers.init();
  await services.migrations.resume();
  await services.catalog.start();

  const metrics = createMetrics(cairnVersion);
  createWorkflowMetrics(metrics.registry, services.workflowOutcomes);
  registerServerMetrics(metrics.registry, { census: services.serverCensus, reconcile: services.reconcileTimer, console: services.consoleHub }, logger);
  registerBackupMetrics(metrics.registry, services.backups.runner);
  await services.backups.start();
  const link = new AgentLinkServer({
    gate: services.enrollment, fleet: services.fleet, agents: services.agents, logger, clock, timings: services.fleet.timings,
    metrics: createLinkMetrics(metrics.registry, services.fleet, services.agents, () => clock.now().getTime()),
    artifacts: services.plugins,
  });
  const tls = config.tlsCert && config.tlsKey ? { certFile: config.tlsCert, keyFile: config.tlsKey } : undefined;
  const grpcPort = await link.listen({ host: config.host, port: config.grpcPort, tls });
  if (!tls && !isLoopbackHost(config.host)) {
    logger.warn({ event: 'agent_link_plaintext', host: config.host }, 'The Agent link listens beyond loopback without TLS; give --tls-cert and --tls-key');
  }
  logger.info({ event: 'grpc_listening', host: config.host, port: grpcPort, tls: tls !== undefined }, 'Agent link listening');
  const app = createHttpApp({
    services, routes: allRoutes(services, advertisedAgentLink(config.host, grpcPort, tls !== undefined)), metrics, logger, version: cairnVersion,
    checkResponses: options.checkResponses ?? false, webDir: config.webDir, uploads: options.uploads,
    readiness: { pingStore: () => repos.ping(), agentLink: () => ({ listening: link.listening, agentsConnected: services.agents.connectedCount }) },
  });
  const http: Server = await new Promise((resolve, reject) => {
    const server = app.listen(config.httpPort, config.host, () => resolve(server));
    server.once('error', reject);
    answerClientErrors(server);
  });
  const httpPort = (http.address() as AddressInfo).port;
  const webUrl = `http://${dialAddress(config.host, httpPort)}/`;
  logger.info({ event: 'http_listening', host: config.host, port: httpPort, store: repos.kind, webUrl }, `HTTP API listening; web UI at ${webUrl}`);
  const localAgent = config.localAgent
    ? new LocalAgent({
      dataDir: config.dataDir, controllerAddress: dialAddress(config.host, grpcPort), controllerCa: tls?.certFile, gamePorts: config.localAgentGamePorts,
      nodes: services.nodes, enrollment: services.enrollment, audit: services.audit, logger,
    })
    : undefined;
  await localAgent?.start();

  return {
    httpPort,
    grpcPort,
    services,
    repos,
    localAgent,
    async close() {
      // Migrations stop first, where they are: the link closing under them must not look like a failure to roll back.
      await services.migrations.stop();
      await localAgent?.stop();
      services.catalog.stop();
      services.backups.stop();
      await link.close();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
      await services.nodes.stop();
      services.servers.stop();
      await repos.close();
    },
  };
}
