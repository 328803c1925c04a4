import { Command } from 'commander';
import { cairnVersion } from '../shared/version.js';
import { registerApply } from './commands/apply.js';
import { registerArchives } from './commands/archives.js';
import { registerCompletion } from './commands/completion.js';
import { registerConsole } from './commands/console.js';
import { registerCopy } from './commands/copy.js';
import { registerCreate } from './commands/create.js';
import { registerDelete } from './commands/delete.js';
import { registerDescribe } from './commands/describe.js';
import { registerGet } from './commands/get.js';
import { registerMembers } from './commands/members.js';
import { registerPower } from './commands/power.js';
import { registerRotateKey } from './commands/rotate-key.js';
import { registerRun } from './commands/schedules.js';
import { registerSession } from './commands/session.js';
import { registerSync } from './commands/sync.js';
import { registerTop } from './commands/top.js';
import { registerWait } from './commands/wait.js';
import { registerWorkflows } from './commands/workflows.js';
import { withGlobals } from './context.js';

/** `cairn VERB [TYPE] [NAME] [flags]`: the whole command tree. */
export function buildProgram(): Command {
  const program = new Command('cairn')
    .description('Run Cairn game-server fleets from the command line (kubectl-shaped).')
    .version(cairnVersion, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
    .enablePositionalOptions()
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({ outputError: (text, write) => write(text) });
  withGlobals(program);
  for (const register of [
    registerSession, registerGet, registerDescribe, registerCreate, registerMembers, registerPower, registerDelete, registerConsole,
    registerCopy, registerArchives, registerWait, registerApply, registerWorkflows, registerRun, registerSync, registerTop, registerRotateKey, registerCompletion,
  ]) register(program);
  return program;
}
