import { commandTooLong, maxCommandBytes } from '../../shared/console-limits.js';
import { AgentError } from '../errors.js';
import type { AgentLinkClient } from '../link/link-client.js';
import type { Reconciler } from '../reconciler/reconciler.js';
import { isRuntimeError } from '../runtime/errors.js';
import type { ServerRuntime } from '../runtime/runtime-types.js';
import { ConsoleRelay } from './console-relay.js';

export interface ConsoleDeps {
  link: AgentLinkClient;
  reconciler: Reconciler;
  runtime: ServerRuntime;
}

/** The operator's console requests, registered on the link: commands to a running game, and its lines relayed while subscribed. */
export function registerConsole({ link, reconciler, runtime }: ConsoleDeps): void {
  const relay = new ConsoleRelay(runtime, {
    sendLine: (line) => link.sendConsoleLine(line),
    sendEnd: (end) => link.sendConsoleEnd(end),
  });
  /** The server's reconciler state; undefined when this Node has no such server (yet). */
  const stateOf = (serverId: string) => reconciler.runner(serverId)?.state;

  // Subscriptions made over a link that is gone are nobody's any more.
  link.onDisconnected(() => relay.unsubscribeAll());

  link.handle('consoleCommand', async ({ serverId, command }) => {
    if (command.length === 0 || commandTooLong(command) || /[\r\n]/.test(command)) {
      throw new AgentError('INVALID_REQUEST', `A command is one line of 1 to ${maxCommandBytes} bytes.`);
    }
    if (stateOf(serverId) !== 'running') throw new AgentError('SERVER_NOT_RUNNING', 'The server is not running.');
    try {
      await runtime.sendCommand(serverId, command);
    } catch (e) {
      if (isRuntimeError(e, 'not_running')) throw new AgentError('SERVER_NOT_RUNNING', 'The server is not running.');
      throw e;
    }
    return {};
  });

  // A game that died leaves its last lines here: they are replayed, with how it ended, instead of a refusal.
  link.handle('consoleSubscribe', async ({ serverId, tail }) => {
    const state = stateOf(serverId);
    try {
      if (state !== 'running' && state !== 'starting') throw new AgentError('SERVER_NOT_RUNNING', 'The server is not running.');
      const entries = await relay.subscribe(serverId, tail);
      return { payload: 'consoleReplay', consoleReplay: { lines: entries.map((e) => e.text), entries, end: null } };
    } catch (e) {
      const ended = state && e instanceof AgentError && e.code === 'SERVER_NOT_RUNNING' ? relay.ended(serverId, tail) : undefined;
      if (!ended) throw e;
      return { payload: 'consoleReplay', consoleReplay: ended };
    }
  });

  link.handle('consoleUnsubscribe', async ({ serverId }) => {
    await relay.unsubscribe(serverId);
    return {};
  });
}
