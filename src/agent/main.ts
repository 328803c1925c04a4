#!/usr/bin/env node
import { createLogger } from '../shared/logger.js';
import { runProgram, stopOnSignals } from '../shared/program-main.js';
import type { RunningAgent } from './agent.js';
import { agentHelp, parseAgentCommandLine, type AgentConfig } from './config.js';
import { GameUidsRefusedError } from './isolation/game-uids.js';
import { openSleepingPorts } from './sleeper/sleeping-ports.js';

const logger = createLogger('cairn-agent');
/** The Agent closes its link and removes unfinished uploads within this, or leaves anyway (`--local-agent` waits 5 s, then kills it). */
const stopDeadlineMs = 10_000;

/** Starts the Agent; one that is not enrolled (or whose enrollment is refused) exits 3, one refused its --game-uids 2. */
async function startAgent(config: AgentConfig): Promise<RunningAgent> {
  // A server's files are for its game to read (`.cairn`, the config the Agent writes), whatever umask
  // the Agent inherited (a `--local-agent` inherits the Controller's 077); its data dir's top is 0700.
  process.umask(0o022);
  // Sleeping servers' ports are answered before the rest of the Agent is even loaded (the link's
  // modules take seconds): players' clients keep seeing them across the Agent's restart.
  const sleepers = await openSleepingPorts(config.dataDir, logger);
  const { NotEnrolledError, runAgent } = await import('./agent.js');
  const { EnrollmentRefused } = await import('./link/enroll.js');
  try {
    return await runAgent(config, logger, { sleepers });
  } catch (e) {
    await sleepers.closeAll();
    const uids = e instanceof GameUidsRefusedError;
    if (!uids && !(e instanceof NotEnrolledError) && !(e instanceof EnrollmentRefused)) throw e;
    logger.fatal({ event: uids ? 'game_uids_refused' : 'not_enrolled', reason: (e as Error).message }, 'cannot start');
    logger.flush();
    process.stderr.write(`cairn-agent: ${(e as Error).message}\n`);
    process.exit(uids ? 2 : 3);
  }
}

runProgram({
  name: 'cairn-agent',
  logger,
  help: agentHelp,
  commandLine: parseAgentCommandLine,
  dataDir: { of: (config) => config.dataDir, program: 'Agent' },
  startFailed: 'agent failed',
  start: async (config) => {
    const agent = await startAgent(config);
    // Before the `started` line: whoever waits for it may signal at once, and a signal with no handler yet would kill mid-start.
    const stop = stopOnSignals({
      logger,
      stop: () => agent.stop(),
      stopping: { message: 'stopping; the games keep running under their supervisors' },
      deadlineMs: stopDeadlineMs,
      // A local Agent gets Ctrl-C's SIGINT and then its Controller's SIGTERM: one stop, not a forced exit.
      secondSignal: 'ignore',
    });
    logger.info({ event: 'started', nodeId: agent.nodeId, controller: config.controller }, 'agent started');
    // Started by `cairn-controller --local-agent` (with an IPC channel): leave when that Controller is gone, however it ended.
    if (process.send) process.once('disconnect', () => stop('controller gone'));
  },
});
