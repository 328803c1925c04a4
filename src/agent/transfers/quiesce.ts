import type { Logger } from '../../shared/logger.js';
import type { TemplateBackupSpec } from '../../shared/templates.js';
import { AgentError } from '../errors.js';
import type { ServerRuntime } from '../runtime/runtime-types.js';
import { noSpaceError, saysNoSpace } from './no-space.js';

/** What quiescing needs of the runtime: typing into a server's console and reading it. */
export type ConsoleAccess = Pick<ServerRuntime, 'attach' | 'sendCommand'>;

/** Ends one hold; the server resumes when the last hold ends. Calling it again does nothing. */
export type Release = () => Promise<void>;

interface Hold {
  spec: TemplateBackupSpec;
  count: number;
  ready: Promise<void>;
}

/**
 * Holds running servers still for consistent copies, as their templates say: the first hold of a
 * server types the quiesce commands and waits for the line that says the save finished; the last
 * release types the resume commands. Holds of one server share one quiesce, so two copies at
 * once never resume the server under each other. A quiesce that fails (no line before the
 * deadline, the server gone) resumes at once and fails every hold waiting for it. A game that says
 * its save failed for want of space will never print the line: that fails it at once, as NO_SPACE.
 */
export class Quiescer {
  private readonly held = new Map<string, Hold>();
  /** A resume still being typed: the next quiesce of the server waits for it. */
  private readonly resuming = new Map<string, Promise<void>>();

  constructor(private readonly console: ConsoleAccess, private readonly logger: Logger) {}

  /** Whether the server is held still for a copy now (or being quiesced or resumed for one). */
  holds(serverId: string): boolean {
    return this.held.has(serverId) || this.resuming.has(serverId);
  }

  async hold(serverId: string, spec: TemplateBackupSpec): Promise<Release> {
    let hold = this.held.get(serverId);
    if (!hold) {
      const after = this.resuming.get(serverId) ?? Promise.resolve();
      const created: Hold = { spec, count: 0, ready: after.then(() => this.quiesce(serverId, spec)) };
      created.ready.catch(() => {
        if (this.held.get(serverId) === created) this.held.delete(serverId);
      });
      this.held.set(serverId, created);
      hold = created;
    }
    hold.count++;
    const current = hold;
    try {
      await current.ready;
    } catch (e) {
      current.count--;
      throw e;
    }
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      current.count--;
      if (current.count > 0 || this.held.get(serverId) !== current) return;
      this.held.delete(serverId);
      const resumed = this.resume(serverId, current.spec);
      this.resuming.set(serverId, resumed);
      try {
        await resumed;
      } finally {
        if (this.resuming.get(serverId) === resumed) this.resuming.delete(serverId);
      }
    };
  }

  private async quiesce(serverId: string, spec: TemplateBackupSpec): Promise<void> {
    const pattern = new RegExp(spec.waitFor);
    const timeoutMs = spec.timeoutSeconds * 1000;
    let finish!: (error?: Error) => void;
    const done = new Promise<void>((resolve, reject) => {
      finish = (error) => (error ? reject(error) : resolve());
    });
    let over = false;
    let armed = false;
    let detach: (() => void) | undefined;
    const timer = setTimeout(() => finish(new Error(`no console line matching ${spec.waitFor} within ${spec.timeoutSeconds} s`)), timeoutMs);
    const steps = async () => {
      const close = await this.console.attach(serverId, { tail: 0, onEnd: () => finish(new Error('the server stopped')) }, (line) => {
        if (armed && pattern.test(line.text)) finish();
        else if (saysNoSpace(line.text)) finish(noSpaceError());
      });
      if (over) close();
      else detach = close;
      for (const [i, command] of spec.quiesce.entries()) {
        if (over) return;
        // Only a line printed after the last command says that command's work is done.
        if (i === spec.quiesce.length - 1) armed = true;
        await this.console.sendCommand(serverId, command);
      }
    };
    steps().catch((e: unknown) => finish(e instanceof Error ? e : new Error(String(e))));
    try {
      await done;
    } catch (e) {
      over = true;
      clearTimeout(timer);
      detach?.();
      await this.resume(serverId, spec);
      if (e instanceof AgentError && e.code === 'NO_SPACE') throw e;
      throw new AgentError('QUIESCE_FAILED', `The server did not get ready for a consistent copy: ${(e as Error).message}.`);
    }
    over = true;
    clearTimeout(timer);
    detach?.();
  }

  /** Types the resume commands; a server that stopped meanwhile needs none. */
  private async resume(serverId: string, spec: TemplateBackupSpec): Promise<void> {
    for (const command of spec.resume) {
      try {
        await this.console.sendCommand(serverId, command);
      } catch (err) {
        this.logger.warn({ serverId, command, err }, 'could not type a resume command');
      }
    }
  }
}
