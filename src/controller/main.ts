#!/usr/bin/env node
import { createLogger } from '../shared/logger.js';
import { runProgram, stopOnSignals } from '../shared/program-main.js';
import { controllerHelp, parseControllerCommandLine } from './program/config.js';
import { startController } from './controller.js';
import { readyLines, settleBriefly } from './program/first-lines.js';

const logger = createLogger('cairn-controller');

/** Beyond the drain deadline, what the rest of the stop (local Agent, link, store) may take before the process leaves anyway. */
const restOfStopMs = 20_000;
/** How long the terminal summary waits for the local Agent to connect before it prints anyway. */
const localAgentSettleMs = 10_000;

runProgram({
  name: 'cairn-controller',
  logger,
  help: controllerHelp,
  commandLine: parseControllerCommandLine,
  dataDir: { of: (config) => config.dataDir, program: 'Controller' },
  startFailed: 'controller failed to start',
  start: async (config) => {
    // What the Controller writes (store, keys, setup code, backups) is this uid's alone: 0600 files, 0700 directories.
    process.umask(0o077);
    const controller = await startController({ config, logger });
    // Before the ready lines: whoever waits for them may signal at once, and a signal with no handler yet would kill mid-start.
    const drainMs = config.shutdownTimeoutMs;
    stopOnSignals({
      logger,
      stop: () => controller.close(),
      stopping: { fields: { drainMs }, message: 'stopping: draining HTTP, then the Agent link and the store' },
      deadlineMs: drainMs + restOfStopMs,
      secondSignal: 'exit',
    });
    if (process.stdout.isTTY) {
      // A person started it: the local Agent's first lines come before the address, so the address is what stays in view.
      await settleBriefly(() => !controller.localAgent || controller.services.agents.connectedCount > 0, localAgentSettleMs);
      process.stdout.write(readyLines(controller).join('\n') + '\n');
    } else {
      process.stdout.write(JSON.stringify({ event: 'listening', httpPort: controller.httpPort, grpcPort: controller.grpcPort, sftpPort: controller.sftpPort }) + '\n');
    }
  },
});
