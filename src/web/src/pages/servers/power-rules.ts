// With its extension: the unit tests type-check this file under Node's module resolution.
import type { ServerDetail, ServerRuntimeState } from '../../api/types.js';

export type PowerVerb = 'start' | 'stop' | 'restart';

/**
 * The API takes power actions only while the phase is READY (`phase_busy` otherwise); within
 * that, Start is for a server meant to be stopped or not running (a sleeping one too, desired
 * RUNNING and STOPPED: a start wakes it), Stop and Restart for one meant to run.
 */
export function powerAllowed(server: Pick<ServerDetail, 'phase' | 'desiredState'> & { runtimeState?: ServerRuntimeState }, verb: PowerVerb): boolean {
  if (server.phase !== 'READY') return false;
  const running = server.runtimeState === 'RUNNING' || server.runtimeState === 'STARTING';
  if (verb === 'start') return server.desiredState !== 'RUNNING' || !running;
  return server.desiredState === 'RUNNING';
}

/** A Controller condition that put the server in phase FAILED (its reason and message). */
const failureOf = (server: Pick<ServerDetail, 'conditions'>) =>
  server.conditions.find((c) => c.reason === 'INSTALL_FAILED' || c.reason === 'WORKFLOW_FAILED');

/** A failed install, which Retry install (POST /servers/{id}/reinstall) takes back to PROVISIONING; a failed workflow is not retried. */
export const installFailed = (server: Pick<ServerDetail, 'phase' | 'conditions'>) =>
  server.phase === 'FAILED' && failureOf(server)?.reason !== 'WORKFLOW_FAILED';

/**
 * Why Start is disabled, in words, so a disabled button never leaves the operator guessing;
 * undefined when Start is allowed.
 */
export function startBlockedReason(
  server: Pick<ServerDetail, 'phase' | 'desiredState' | 'conditions' | 'workflow'> & { runtimeState?: ServerRuntimeState },
): string | undefined {
  if (powerAllowed(server, 'start')) return undefined;
  const step = server.workflow ? ` (${server.workflow.step})` : '';
  switch (server.phase) {
    case 'READY': return 'The server is running already.';
    case 'FAILED': {
      const failure = failureOf(server);
      if (failure?.reason === 'WORKFLOW_FAILED') return `The last workflow failed: ${failure.message}. A FAILED server takes no power actions.`;
      return `The install failed: ${failure?.message ?? 'no reason was reported'}. Retry the install first.`;
    }
    case 'PROVISIONING': return `The software is being installed${step}; the server can start once it is READY.`;
    case 'DELETING': return 'The server is being deleted.';
    default: return `The server is ${server.phase}${step}; it can start once it is READY.`;
  }
}
