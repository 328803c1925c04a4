#!/usr/bin/env node
import { createLogger } from '../shared/logger.js';
import { NotEnrolledError, runAgent } from './agent.js';
import { ProgramArgsError, versionLine } from '../shared/program-args.js';
import { AgentConfigError, agentHelp, parseAgentCommandLine } from './config.js';
import { EnrollmentRefused } from './enroll.js';

const logger = createLogger('cairn-agent');
/** The Agent closes its link and removes unfinished uploads within this, or leaves anyway (`--local-agent` waits 5 s, then kills it). */
const stopDeadlineMs = 10_000;

async function main(): Promise<void> {
  let args;
  try {
    args = parseAgentCommandLine(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof AgentConfigError) && !(e instanceof ProgramArgsError)) throw e;
    process.stderr.write(`cairn-agent: ${e.message}\n`);
    process.exit(2);
  }
  if (args.action !== 'run') {
    process.stdout.write(args.action === 'help' ? agentHelp : versionLine());
    return;
  }
  const config = args.config;
  let agent;
  try {
    agent = await runAgent(config, logger);
  } catch (e) {
    if (!(e instanceof NotEnrolledError) && !(e instanceof EnrollmentRefused)) throw e;
    logger.fatal({ event: 'not_enrolled', reason: e.message }, 'cannot start');
    logger.flush();
    process.stderr.write(`cairn-agent: ${e.message}\n`);
    process.exit(3);
  }
  logger.info({ event: 'started', nodeId: agent.nodeId, controller: config.controller }, 'agent started');
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ event: 'stopping', signal }, 'stopping; the games keep running under their supervisors');
    setTimeout(() => {
      logger.error({ event: 'stop_timeout' }, 'the stop did not finish in time; exiting');
      logger.flush(() => process.exit(1));
    }, stopDeadlineMs).unref();
    agent.stop().then(() => {
      logger.info({ event: 'stopped', signal }, 'stopped');
      logger.flush(() => process.exit(0));
    }, (err: unknown) => {
      logger.error({ err }, 'stopping failed');
      logger.flush(() => process.exit(1));
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // Started by `cairn-controller --local-agent` (with an IPC channel): leave when that Controller is gone, however it ended.
  if (process.send) process.once('disconnect', () => stop('controller gone'));
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, 'agent failed');
  logger.flush();
  process.exit(1);
});
