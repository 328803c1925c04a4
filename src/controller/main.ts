#!/usr/bin/env node
import { createLogger } from '../shared/logger.js';
import { ProgramArgsError, versionLine } from '../shared/program-args.js';
import { ConfigError, controllerHelp, parseControllerCommandLine } from './config.js';
import { startController } from './controller.js';

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
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ event: 'stopping', signal }, 'stopping');
    await controller.close();
    logger.flush();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, 'controller failed to start');
  logger.flush();
  process.exit(1);
});
