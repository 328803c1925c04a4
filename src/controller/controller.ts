import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock, uuidV7Ids, type Clock, type IdGenerator } from '../shared/clock.js';
import { createLogger, type Logger } from '../shared/logger.js';
import { cairnVersion } from '../shared/version.js';
import type { ControllerConfig } from './config.js';
import { createHttpApp } from './http/app.js';
import { createMetrics } from './http/metrics.js';
import { allRoutes } from './http/routes/index.js';
import { createServices, type Services } from './services/index.js';
import type { SessionPolicy } from './services/sessions.js';
import { openStore } from './store/open-store.js';
import type { Repositories } from './store/repositories.js';

export interface ControllerOptions {
  config: ControllerConfig;
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
  sessionPolicy?: SessionPolicy;
  /** Fail requests whose answers do not match their schemas (tests turn this on). */
  checkResponses?: boolean;
}

export interface RunningController {
  httpPort: number;
  grpcPort: number;
  services: Services;
  repos: Repositories;
  close(): Promise<void>;
}

/** Builds and starts a whole Controller: store, services, HTTP. No work happens at import time. */
export async function startController(options: ControllerOptions): Promise<RunningController> {
  const { config } = options;
  const logger = options.logger ?? createLogger('cairn-controller');
  const clock = options.clock ?? systemClock;
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const repos = await openStore({ dataDir: config.dataDir, mongodbUri: config.mongodbUri, clock });
  const services = createServices({ repos, clock, ids: options.ids ?? uuidV7Ids, logger, dataDir: config.dataDir }, options.sessionPolicy);
  await services.roles.seedBuiltins();
  await services.setup.prepare();

  const metrics = createMetrics();
  const app = createHttpApp({
    services, routes: allRoutes(services), metrics, logger, version: cairnVersion,
    checkResponses: options.checkResponses ?? false, ready: () => repos.ping(),
  });
  const http: Server = await new Promise((resolve, reject) => {
    const server = app.listen(config.httpPort, config.host, () => resolve(server));
    server.once('error', reject);
  });
  const httpPort = (http.address() as AddressInfo).port;
  logger.info({ event: 'http_listening', host: config.host, port: httpPort, store: repos.kind }, 'HTTP API listening');

  return {
    httpPort,
    grpcPort: 0,
    services,
    repos,
    async close() {
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
      await repos.close();
    },
  };
}
