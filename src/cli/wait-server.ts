import { setTimeout as delay } from 'node:timers/promises';
import type { ServerItem } from './api-types.js';
import type { CliClient } from './client.js';
import { ApiError, CliError } from './errors.js';
import { readEvents } from './sse.js';

export const waitConditions = ['converged', 'running', 'stopped', 'ready', 'deleted'] as const;
export type WaitCondition = (typeof waitConditions)[number];

/** Whether `server` (undefined: gone) is what `--for` asks for. */
export function conditionMet(condition: WaitCondition, server: ServerItem | undefined): boolean {
  if (condition === 'deleted' || server === undefined) return condition === 'deleted' && server === undefined;
  switch (condition) {
    case 'converged': return server.convergence === 'CONVERGED';
    case 'running': return server.runtimeState === 'RUNNING';
    case 'stopped': return server.runtimeState === 'STOPPED' || (server.runtimeState === undefined && server.phase === 'READY' && server.desiredState === 'STOPPED');
    case 'ready': return server.phase === 'READY';
  }
}

/** Pause between watch connections when the Controller ends one (a restart), within the deadline. */
const reconnectMs = 500;

/**
 * Follows GET /servers/watch until `met` holds for the server (undefined: gone) or `deadline`
 * aborts. The stream is opened first and the server read once it is open, so no change falls
 * between; `live` is false for that first read and the watch's opening snapshot, true for changes
 * after it (`synced`).
 */
export async function watchUntil(
  client: CliClient, id: string, met: (s: ServerItem | undefined, live: boolean) => boolean, deadline?: AbortSignal,
): Promise<{ met: boolean; last: ServerItem | undefined }> {
  const state: { met: boolean; last?: ServerItem; failure?: Error } = { met: false };
  const going = () => !state.met && deadline?.aborted !== true && state.failure === undefined;
  while (going()) {
    const abort = new AbortController();
    let live = false;
    const check = (s: ServerItem | undefined, changed: boolean) => {
      state.last = s;
      state.met = met(s, changed);
      if (state.met) abort.abort();
    };
    const onDeadline = () => abort.abort();
    deadline?.addEventListener('abort', onDeadline);
    await readEvents(client, '/servers/watch', (e) => {
      if (e.event === 'synced') live = true;
      if (e.event === 'server' && (e.data as ServerItem).id === id) check(e.data as ServerItem, live);
      if (e.event === 'server-deleted' && (e.data as { id: string }).id === id) check(undefined, live);
    }, {
      signal: abort.signal,
      onOpen: () => void client.get<ServerItem>(`/servers/${id}`).then((s) => check(s, false), (e: unknown) => {
        if (e instanceof ApiError && e.status === 404) return check(undefined, false);
        state.failure = e as Error;
        abort.abort();
      }),
    }).catch((e: unknown) => {
      // An unreachable Controller (restarting) is waited out like a closed stream; anything else ends the wait.
      if (!(e instanceof CliError)) state.failure = e as Error;
    }).finally(() => deadline?.removeEventListener('abort', onDeadline));
    if (going()) await delay(reconnectMs, undefined, deadline ? { signal: deadline } : {}).catch(() => undefined);
  }
  if (state.failure) throw state.failure;
  return { met: state.met, last: state.last };
}

/** Follows the watch until the server meets `condition` or `timeoutMs` passes. */
export function waitFor(client: CliClient, id: string, condition: WaitCondition, timeoutMs: number): Promise<{ met: boolean; last: ServerItem | undefined }> {
  return watchUntil(client, id, (s) => conditionMet(condition, s), AbortSignal.timeout(timeoutMs));
}
