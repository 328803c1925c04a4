import type { ConsoleHub, ConsoleWatch } from './console-hub.js';
import { agentDeadlines, type NodeCalls } from '../../link/node-calls.js';
import type { Access } from '../identity/access.js';
import type { ServerAggregate } from '../servers/aggregate.js';
import type { StreamGuards } from '../identity/stream-guard.js';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { invalidRequest } from '../../core/errors.js';
import type { RemoteConsole } from './remote-console.js';
import { commandTooLong, maxCommandBytes } from '../../../shared/console-limits.js';

/** One line of printable text: no line breaks or other control characters, not blank, no leading slash. */
export function checkCommand(command: string, field = 'body.command'): void {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(command)) throw invalidRequest(`${field}: one line without line breaks or control characters.`);
  if (command.trim() === '') throw invalidRequest(`${field}: must not be empty.`);
  if (commandTooLong(command)) throw invalidRequest(`${field}: at most ${maxCommandBytes} bytes of UTF-8.`);
  if (command.startsWith('/')) throw invalidRequest(`${field}: leave out the leading slash.`);
}

/** The server console: commands typed as an operator would, and the live stream. */
export class ConsoleService {
  constructor(
    private readonly servers: ServerAggregate,
    private readonly calls: NodeCalls,
    private readonly hub: ConsoleHub,
    private readonly access: Access,
    private readonly guards: StreamGuards,
    private readonly remote?: RemoteConsole,
  ) {}

  async command(caller: Caller, serverId: string, command: string, audit: AuditScope): Promise<void> {
    audit.target(serverId).detail({ command });
    checkCommand(command);
    const doc = await this.servers.load(caller, serverId, 'servers.command');
    await this.calls.ask(doc, { body: 'consoleCommand', consoleCommand: { serverId, command } }, { timeoutMs: agentDeadlines.quick });
  }

  async watch(caller: Caller, serverId: string, tail: number): Promise<ConsoleWatch> {
    const doc = await this.servers.load(caller, serverId, 'servers.console');
    // A server whose Node another Controller drives is watched there, and relayed.
    const holder = await this.remote?.holderOf(doc);
    const watch = holder ? await this.remote!.watch(holder, doc, tail, caller.user._id) : await this.hub.watch(doc, tail, caller.user._id);
    // The stream lasts as long as its caller may read this console: re-checked on every access change.
    const unguard = this.guards.keep(caller, watch, (current) => this.access.may(current, doc.teamId, 'servers.console'));
    return {
      start: (sink) => watch.start(sink),
      close: () => {
        unguard();
        watch.close();
      },
    };
  }
}
