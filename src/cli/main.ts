#!/usr/bin/env node
import { CommanderError } from 'commander';
import { installCrashHandlers } from '../shared/crash-handlers.js';
import { ApiError, CliError, UsageError } from './errors.js';
import { buildProgram } from './program.js';
import { DurationError } from './duration.js';
import { QuantityError } from './quantity.js';

/** Exit statuses of contract.md: 0 done, 1 refused (by the API or the situation), 2 usage error. */
function exitCodeOf(error: unknown): number {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
    return 2;
  }
  if (error instanceof UsageError || error instanceof QuantityError || error instanceof DurationError) {
    process.stderr.write(`error: ${error.message}\n`);
    return 2;
  }
  if (error instanceof ApiError) {
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
  process.stderr.write(`error: ${error instanceof CliError ? error.message : String((error as Error).stack ?? error)}\n`);
  return 1;
}

// An error nothing caught (a bug): one `error: …` line and exit 1, not a stack trace for the user.
installCrashHandlers('cairn', { forUsers: true });

// A reader that goes away (`cairn get servers | head`) ends the output, not the command with a stack trace.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
});

void buildProgram()
  .parseAsync(process.argv.slice(2), { from: 'user' })
  .then(() => 0, exitCodeOf)
  // Exit at once (idle keep-alive connections would hold the process), once stdout has taken everything.
  .then((code) => process.stdout.write('', () => process.exit(code)));
