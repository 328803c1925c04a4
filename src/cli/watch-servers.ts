import { setTimeout as delay } from 'node:timers/promises';
import type { ServerItem, ServerWatchSynced } from './api-types.js';
import type { CliClient } from './client.js';
import { print } from './context.js';
import { ApiError, CliError } from './errors.js';
import { rows, table, type Format, type View } from './output.js';
import { readEvents, type StreamEvent } from './sse.js';
import type { ServerRow } from './views.js';
import YAML from 'yaml';

export interface WatchFilter {
  teamId?: string;
  nodeId?: string;
  serverId?: string;
}

const matches = (s: ServerItem, f: WatchFilter) =>
  (f.teamId === undefined || s.teamId === f.teamId) && (f.nodeId === undefined || s.nodeId === f.nodeId) && (f.serverId === undefined || s.id === f.serverId);

/**
 * Prints a stream of server states, one record each: table rows (the header once), or one JSON
 * line, YAML document or `server/name` line per state. A state equal to the last one printed for
 * that server is left out, so a stream that starts with a snapshot repeats nothing.
 */
export class ServerPrinter {
  private readonly last = new Map<string, string>();
  private header = true;

  constructor(private readonly view: View<ServerRow>, private readonly format: Format) {}

  show(items: ServerRow[]): void {
    const fresh = items.filter((s) => this.last.get(s.id) !== JSON.stringify(s));
    for (const s of fresh) this.last.set(s.id, JSON.stringify(s));
    if (fresh.length > 0) print(this.render(fresh));
  }

  /** After a fresh snapshot: servers it did not name are gone. */
  forgetAllBut(ids: Set<string>): void {
    for (const id of [...this.last.keys()]) if (!ids.has(id)) this.deleted(id);
  }

  deleted(id: string): void {
    const last = this.last.get(id);
    if (last === undefined) return;
    this.last.delete(id);
    const gone: ServerRow = { ...(JSON.parse(last) as ServerItem), phase: 'DELETED' };
    print(this.format === 'json' || this.format === 'yaml' ? this.document({ id, name: gone.name, deleted: true }) : this.render([gone]));
  }

  private document(value: unknown): string {
    return this.format === 'json' ? JSON.stringify(value) + '\n' : `---\n${YAML.stringify(value)}`;
  }

  private render(items: ServerRow[]): string {
    if (this.format === 'json' || this.format === 'yaml') return items.map((s) => this.document(s)).join('');
    if (this.format === 'name') return items.map((s) => `server/${s.name}\n`).join('');
    const out = table(rows(this.view, items, this.format === 'wide', this.header));
    this.header = false;
    return out;
  }
}

/** How long `get --watch` tries to get its stream back after it drops, unless `--reconnect-timeout` says otherwise. */
export const reconnectTimeoutMs = 60_000;

/** Pause before reconnect attempt `n`: 0.5 s doubling to at most 5 s, jittered so many watchers do not come back at once. */
const backoffMs = (attempt: number) => {
  const base = Math.min(5_000, 500 * 2 ** attempt);
  return base / 2 + Math.random() * (base / 2);
};

/** Refusals another attempt cannot fix (not signed in, not allowed); anything else is a dropped stream. */
const final = (e: unknown) => e instanceof ApiError && e.status < 500 && e.status !== 429;

/**
 * `cairn get servers --watch`: the stream's snapshot as one table, then each change. When the
 * stream drops, it reconnects with the last event id and gets what it missed (or a fresh
 * snapshot, after which servers it no longer names are shown as deleted); it gives up, exit 1,
 * when no connection is whole again (`synced`) within `timeoutMs` of the drop.
 */
export async function watchServers(client: CliClient, view: View<ServerRow>, format: Format, filter: WatchFilter, timeoutMs = reconnectTimeoutMs): Promise<void> {
  const printer = new ServerPrinter(view, format);
  let lastEventId: string | undefined;
  let lost: { since: number; attempts: number } | undefined;
  const apply = (e: StreamEvent) => {
    if (e.event === 'server' && matches(e.data as ServerItem, filter)) printer.show([e.data as ServerItem]);
    if (e.event === 'server-deleted') printer.deleted((e.data as { id: string }).id);
  };
  for (;;) {
    // What comes before `synced` is a snapshot or the missed changes: which one, `synced` says.
    let opening: StreamEvent[] | undefined = [];
    let reason = 'the Controller ended the stream';
    try {
      await readEvents(client, '/servers/watch', (e) => {
        if (e.id !== undefined) lastEventId = e.id;
        if (opening === undefined) return apply(e);
        if (e.event !== 'synced') return void opening.push(e);
        if ((e.data as ServerWatchSynced).snapshot) {
          const items = opening.flatMap((o) => (o.event === 'server' ? [o.data as ServerItem] : [])).filter((s) => matches(s, filter));
          printer.show(items);
          printer.forgetAllBut(new Set(items.map((s) => s.id)));
        } else {
          opening.forEach(apply);
        }
        opening = undefined;
        lost = undefined;
      }, { lastEventId });
    } catch (e) {
      if (final(e)) throw e;
      reason = (e as Error).message;
    }
    lost ??= { since: Date.now(), attempts: 0 };
    const left = lost.since + timeoutMs - Date.now();
    if (left <= 0) throw new CliError(`the watch stream dropped and could not be resumed within ${timeoutMs / 1000}s: ${reason}`);
    await delay(Math.min(left, backoffMs(lost.attempts++)));
  }
}
