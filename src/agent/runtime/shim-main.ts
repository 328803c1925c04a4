import { installCrashHandlers } from '../../shared/crash-handlers.js';
import { SHIM_BUSY_EXIT_CODE } from './shim-protocol.js';
import { runShim, ShimAlreadyRunningError } from './shim.js';

// An error nothing caught: one JSON line in shim.log (its stderr), then exit 1.
installCrashHandlers('shim');

/**
 * Entry of the per-server shim: `shim-main <state-dir>`. The Agent starts it detached in a new
 * session; the launch spec is read from the state dir so nothing secret shows in `ps`.
 */
const stateDir = process.argv[2];
if (!stateDir) {
  process.stderr.write('usage: shim-main <state-dir>\n');
  process.exit(2);
}
runShim(stateDir).catch((error: unknown) => {
  process.stderr.write(`${JSON.stringify({ at: new Date().toISOString(), event: 'shim_failed', message: error instanceof Error ? error.message : String(error) })}\n`);
  process.exit(error instanceof ShimAlreadyRunningError ? SHIM_BUSY_EXIT_CODE : 1);
});
