#!/usr/bin/env node
import { createLogger } from '../shared/logger.js';
import { ProgramArgsError, versionLine } from '../shared/program-args.js';
import { ConfigError, controllerHelp, parseControllerCommandLine } from './config.js';
import { startController, type RunningController } from './controller.js';

const logger = createLogger('cairn-controller');

async function main(): Promise<void> {
  let args;
  try {
    args = parseControllerCommandLine(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof ConfigError) && !(e instanceof ProgramArgsError)) throw e;
    process.stderr.write(`cairn-controller: ${e.message}\n`);
    process.exit(2);
  }
  if (args.action !== 'run') {
    process.stdout.write(args.action === 'help' ? controllerHelp : versionLine());
    return;
  }
  const config = args.config;
  const controller = await startController({ config, logger });
  process.stdout.write(JSON.stringify({ event: 'listening', httpPort: controller.httpPort, grpcPort: controller.grpcPort }) + '\n');
  stopOnSignals(controller, config.shutdownTimeoutMs);
}

/** Beyond the drain deadline, what the rest of the stop (local Agent, link, store) may take before the process leaves anyway. */
const restOfStopMs = 20_000;

function exitAfterFlush(code: number): void {
  logger.flush(() => process.exit(code));
}

/**
 * SIGTERM or SIGINT stops gracefully and exits 0 with a last `stopped` log line; a second signal,
 * or a stop that outlives its deadlines, exits at once with 1.
 */
function stopOnSignals(controller: RunningController, drainMs: number): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      logger.warn({ event: 'stop_forced', signal }, 'second signal: exiting without finishing the stop');
      exitAfterFlush(1);
      return;
    }
    stopping = true;
    const startedAt = Date.now();
    logger.info({ event: 'stopping', signal, drainMs }, 'stopping: draining HTTP, then the Agent link and the store');
    setTimeout(() => {
      logger.error({ event: 'stop_timeout', afterMs: Date.now() - startedAt }, 'the stop did not finish in time; exiting');
      exitAfterFlush(1);
    }, drainMs + restOfStopMs).unref();
    controller.close().then((report) => {
      logger.info({ event: 'stopped', signal, tookMs: Date.now() - startedAt, ...report }, 'stopped');
      exitAfterFlush(0);
    }, (err: unknown) => {
      logger.error({ event: 'stop_failed', err }, 'stopping failed');
      exitAfterFlush(1);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, 'controller failed to start');
  logger.flush();
  process.exit(1);
});
