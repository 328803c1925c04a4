import type { ServerDetail, ServerWatchEvent } from './api-types.js';
import { EventStreamReader } from './event-stream.js';
import { serverCpuMillis, serverMemory, type ControllerSlot, type FaultCluster } from './fault-cluster.js';

type ServerEvent = Extract<ServerWatchEvent, { event: 'server' }>;

/** One acknowledged PATCH: the generation its 2xx gave and the disk limit it set. */
export interface Acknowledged {
  serverId: string;
  generation: number;
  diskBytes: number;
}

const MiB = 2 ** 20;

/**
 * Keeps PATCHing the servers' disk limits (a change of desired state that applies without a
 * restart, so the games' processes tell whether a fault restarted them), one request at a time
 * and at most `perSecond` a second, each through a Controller that is up picked at random. Every
 * 2xx is recorded; a refusal (503, or a 409 conflict) or a connection cut by a fault is counted,
 * any other answer is kept to fail the run. The pace is an operator's
 * busy fleet, not a flood: back to back, the writes alone kept FerretDB so busy on the shared 2-core
 * machine that the Controllers' lease renewals missed their time (load average 20–28).
 */
export class FaultWriter {
  readonly acknowledged: Acknowledged[] = [];
  readonly refused = new Map<string, number>();
  readonly unexpected: string[] = [];
  private running = true;
  private done: Promise<void> | undefined;
  private n = 0;

  constructor(private readonly cluster: FaultCluster, private readonly perSecond = 10) {}

  start(): void {
    this.done = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const paced = new Promise((resolve) => setTimeout(resolve, 1000 / this.perSecond));
      const up = this.cluster.up;
      const slot = up[Math.floor(Math.random() * up.length)] as ControllerSlot | undefined;
      const host = this.cluster.hosts[this.n % this.cluster.hosts.length];
      this.n++;
      const diskBytes = (1024 + (this.n % 97)) * MiB;
      if (!slot) {
        await paced;
        continue;
      }
      try {
        const res = await this.cluster.apiOf(slot).patch<ServerDetail>(`/servers/${host.serverId}`, { resources: { cpuMillis: serverCpuMillis, memoryBytes: serverMemory, diskBytes } });
        if (res.status === 200) this.acknowledged.push({ serverId: host.serverId, generation: res.body.generation, diskBytes });
        // A conflict is a refusal too: another Controller's write of the server stood unfinished (killed or stopped mid-write).
        else if (res.status === 503 || (res.status === 409 && (res.body as unknown as { code?: string }).code === 'conflict')) this.count(`${res.status} ${(res.body as unknown as { code?: string }).code}`);
        else this.unexpected.push(`${res.status} ${res.text}`);
      } catch (e) {
        // The Controller died or was restarted under the request: not acknowledged, so not promised.
        this.count(`cut: ${(e as Error).message}`);
      }
      await paced;
    }
  }

  private count(what: string): void {
    this.refused.set(what, (this.refused.get(what) ?? 0) + 1);
  }
}

/** How a watcher's (re)opened stream began: a resume from its last id, or a snapshot. */
export interface Reopening {
  lastEventId: string | undefined;
  snapshot: boolean;
  /** Whether the Controller behind it was a new process. */
  newProcess: boolean;
}

/**
 * GET /servers/watch on one Controller slot. After a fault it is opened again with the last id it
 * read (as EventSource does), and records whether that resumed or gave a snapshot.
 */
export class FaultWatcher {
  readonly reopenings: Reopening[] = [];
  /** Server events whose generation went below one the same stream had shown for that server. */
  readonly backwards: string[] = [];
  private stream: EventStreamReader<ServerWatchEvent> | undefined;
  private read = 0;
  private lastId: string | undefined;
  private readonly latest = new Map<string, ServerEvent['data']>();
  private streamLatest = new Map<string, number>();
  private openedOn: unknown;

  constructor(private readonly cluster: FaultCluster, readonly slot: ControllerSlot) {}

  /** Opens the stream (again, with the last id read) and waits for its `synced`. */
  async open(): Promise<void> {
    this.take();
    this.stream?.close();
    const lastEventId = this.lastId;
    const newProcess = this.openedOn !== undefined && this.openedOn !== this.slot.process;
    this.openedOn = this.slot.process;
    this.stream = await EventStreamReader.open<ServerWatchEvent>(this.cluster.apiOf(this.slot), '/servers/watch', lastEventId);
    if (this.stream.status !== 200) throw new Error(`GET /servers/watch on Controller ${this.slot.index}: ${this.stream.status}`);
    this.read = 0;
    this.streamLatest = new Map();
    const synced = await this.stream.next((e) => e.event === 'synced', 'synced', 30_000);
    if (lastEventId !== undefined) this.reopenings.push({ lastEventId, snapshot: (synced.data as { snapshot: boolean }).snapshot, newProcess });
    this.take();
  }

  /** The newest state of each server this watcher has been told. */
  latestOf(serverId: string): ServerEvent['data'] | undefined {
    this.take();
    return this.latest.get(serverId);
  }

  close(): void {
    this.stream?.close();
  }

  private take(): void {
    const events = this.stream?.events ?? [];
    for (; this.read < events.length; this.read++) {
      const e = events[this.read];
      // The stream's own comments and a `synced` may come without an id.
      const id = e.id as string | undefined;
      if (id !== undefined) this.lastId = id;
      if (e.event !== 'server') continue;
      const before = this.streamLatest.get(e.data.id) ?? 0;
      if (e.data.generation < before) this.backwards.push(`${e.data.id}: generation ${e.data.generation} after ${before} (id ${e.id})`);
      this.streamLatest.set(e.data.id, Math.max(before, e.data.generation));
      this.latest.set(e.data.id, e.data);
    }
  }
}
