import type { ServerItem } from './api-types.js';
import type { CliClient } from './client.js';
import { print } from './context.js';
import { CliError } from './errors.js';
import { rows, table, type Format, type View } from './output.js';
import { readEvents } from './sse.js';
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

  constructor(private readonly view: View<ServerItem>, private readonly format: Format) {}

  show(items: ServerItem[]): void {
    const fresh = items.filter((s) => this.last.get(s.id) !== JSON.stringify(s));
    for (const s of fresh) this.last.set(s.id, JSON.stringify(s));
    if (fresh.length > 0) print(this.render(fresh));
  }

  deleted(id: string): void {
    const last = this.last.get(id);
    if (last === undefined) return;
    this.last.delete(id);
    const gone = { ...(JSON.parse(last) as ServerItem), phase: 'DELETED' };
    print(this.format === 'json' || this.format === 'yaml' ? this.document({ id, name: gone.name, deleted: true }) : this.render([gone]));
  }

  private document(value: unknown): string {
    return this.format === 'json' ? JSON.stringify(value) + '\n' : `---\n${YAML.stringify(value)}`;
  }

  private render(items: ServerItem[]): string {
    if (this.format === 'json' || this.format === 'yaml') return items.map((s) => this.document(s)).join('');
    if (this.format === 'name') return items.map((s) => `server/${s.name}\n`).join('');
    const out = table(rows(this.view, items, this.format === 'wide', this.header));
    this.header = false;
    return out;
  }
}

/**
 * `cairn get servers --watch`: the list, then each change from GET /servers/watch. The stream is
 * opened first so nothing falls between; what it sends before the list arrives is in the list.
 */
export async function watchServers(client: CliClient, view: View<ServerItem>, format: Format, filter: WatchFilter): Promise<void> {
  const printer = new ServerPrinter(view, format);
  const abort = new AbortController();
  let listed = false;
  let failure: Error | undefined;
  await readEvents(client, '/servers/watch', (e) => {
    if (!listed) return;
    if (e.event === 'server' && matches(e.data as ServerItem, filter)) printer.show([e.data as ServerItem]);
    if (e.event === 'server-deleted') printer.deleted((e.data as { id: string }).id);
  }, {
    signal: abort.signal,
    onOpen: () => {
      client.all<ServerItem>('/servers', { teamId: filter.teamId, nodeId: filter.nodeId }).then((items) => {
        printer.show(items.filter((s) => matches(s, filter)));
        listed = true;
      }, (e: unknown) => {
        failure = e as Error;
        abort.abort();
      });
    },
  });
  throw failure ?? new CliError('the Controller ended the watch');
}
