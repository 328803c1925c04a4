import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Static } from 'typebox';
import type { Cluster } from '../../src/controller/schemas/cluster.js';
import type { EnrollmentIssued, Node, ServerDetail, Team } from './api-types.js';
import { AgentProcess } from './agent-process.js';
import { ControllerProcess, setUpAdminOf } from './controller-process.js';
import { GiB, killGames, waitForServer } from './fleet.js';
import { privateGamePorts } from './game-ports.js';
import type { ApiClient } from './http.js';
import { TcpBalancer } from './tcp-balancer.js';
import { freshTestDatabase, type TestMongo } from './test-mongodb.js';
import { waitFor } from './wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
/** How long one probe of who drives a Node may take before it counts as "not driven" (its Controller was stopped under it). */
const probeTimeoutMs = 2_000;
export const serverMemory = GiB / 8;
export const serverCpuMillis = 250;
const agentArgs = ['--cpu-millis', '8000', '--memory-bytes', String(4 * GiB), '--restart-backoff-ms', '100', '--bind-address', '127.0.0.1'];

/** `up`: answering; `stopped`: SIGSTOPped (alive, silent); `down`: no process (killed or restarting). */
export type SlotState = 'up' | 'stopped' | 'down';

/** One Controller's place in the cluster: its data dir and link port outlive its processes. */
export interface ControllerSlot {
  readonly index: number;
  readonly dataDir: string;
  grpcPort: number;
  process: ControllerProcess;
  state: SlotState;
  /** The logs of the processes this slot ran before the current one. */
  pastLogs: string[];
}

export interface FaultHost {
  nodeId: string;
  dir: string;
  agent: AgentProcess;
  serverId: string;
  gamePid: number;
}

/**
 * Controller processes on one fresh database (FerretDB or MONGODB_URI) with short leases, a TCP
 * balancer in front of their link ports, and real Agents dialling it, each running one simcraft
 * game: the rig the fault test and bench break. A slot's Controller comes back as a new process
 * with the same flags, data dir and link port.
 */
export class FaultCluster {
  readonly slots: ControllerSlot[] = [];
  readonly hosts: FaultHost[] = [];
  private readonly dirs: string[] = [];
  private cookie = '';
  private balancer: TcpBalancer | undefined;
  private secretsKeyFile = '';

  private constructor(
    private readonly database: { uri(): Promise<string>; drop(): Promise<void> },
    readonly leaseTtlSeconds: number,
    private readonly storeUriOf: (uri: string) => string,
  ) {}

  /** `storeUri`: the URI the Controllers are given for the fresh database's (e.g. through a proxy a test can cut); the rig itself uses the database's own. */
  static async start(mongo: TestMongo, options: { controllers: number; agents: number; leaseTtlSeconds: number; storeUri?: (uri: string) => string }): Promise<FaultCluster> {
    const cluster = new FaultCluster(freshTestDatabase(mongo, 'cairn_faults'), options.leaseTtlSeconds, options.storeUri ?? ((uri) => uri));
    try {
      await cluster.build(options.controllers, options.agents);
    } catch (e) {
      await cluster.close();
      throw e;
    }
    return cluster;
  }

  apiOf(slot: ControllerSlot): ApiClient {
    return slot.process.api.withCookie(this.cookie);
  }

  get up(): ControllerSlot[] {
    return this.slots.filter((s) => s.state === 'up');
  }

  /** A new process in the slot, with the slot's flags; resolves once it listens. */
  async relaunch(slot: ControllerSlot): Promise<void> {
    slot.pastLogs.push(slot.process.stderr);
    slot.process = await this.launch(slot.dataDir, slot.grpcPort);
  }

  /** How many times a process of the rig said that a link or a lease changed (see `changeAfter`). */
  get changes(): number {
    return this.changeCount;
  }

  /**
   * Resolves once a Controller or an Agent says a link or a lease changed after the `seen`th such
   * line, or after `ms` (what changes without a word: a status written, a lease run out). Waits on
   * the rig's own processes instead of asking the Controllers over and over, which loaded the
   * store the Controllers renew their leases in.
   */
  async changeAfter(seen: number, ms: number): Promise<void> {
    if (this.changeCount !== seen) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      this.changeListeners.add(resolve);
    }).finally(() => clearTimeout(timer));
  }

  private changeCount = 0;
  private readonly changeListeners = new Set<() => void>();

  private listenForChanges(stderr: Readable | null): void {
    stderr?.on('data', (text: string) => {
      if (!changeEvents.test(text)) return;
      this.changeCount++;
      const listeners = [...this.changeListeners];
      this.changeListeners.clear();
      for (const resolve of listeners) resolve();
    });
  }

  /** The log lines of every Controller process the rig ran, each process's apart (JSON lines only). */
  controllerLogs(): Record<string, unknown>[][] {
    return this.slots.flatMap((s) => [...s.pastLogs, s.process.stderr].map(jsonLines));
  }

  agentLogs(): Record<string, unknown>[][] {
    return this.hosts.map((h) => jsonLines(h.agent.stderr));
  }

  /**
   * What every process said of a Node in the last `ms` before now, in time order, one line each
   * (`controller-1#3` is slot 1's fourth process): its own Agent's lines, and the Controllers'
   * lines that name it or lose every lease. For a run that failed without its logs kept (CI).
   */
  storyOf(nodeId: string, ms: number): string[] {
    const since = Date.now() - ms;
    const host = this.hosts.find((h) => h.nodeId === nodeId);
    const sources: [string, Record<string, unknown>[], (l: Record<string, unknown>) => boolean][] = [
      ...this.slots.flatMap((s) => [...s.pastLogs, s.process.stderr].map((text, i): [string, Record<string, unknown>[], (l: Record<string, unknown>) => boolean] =>
        [`controller-${s.index}#${i}`, jsonLines(text), (l) => l.nodeId === nodeId || l.event === 'leases_lost' || l.event === 'cluster_joined'])),
      ...(host ? [['agent', jsonLines(host.agent.stderr), () => true] as [string, Record<string, unknown>[], (l: Record<string, unknown>) => boolean]] : []),
    ];
    const lines = sources.flatMap(([who, logs, keep]) => logs.filter((l) => typeof l.time === 'number' && l.time >= since && keep(l)).map((l) => ({ who, l })));
    return lines.sort((a, b) => (a.l.time as number) - (b.l.time as number)).map(({ who, l }) => {
      const { time, level, event, msg, term, reason, owner } = l as Record<string, string | number | undefined>;
      return `${new Date(time as number).toISOString().slice(11, 23)} ${who} ${level} ${event ?? ''} ${term ?? ''} ${reason ?? ''} ${owner ?? ''} ${String(msg ?? '').slice(0, 80)}`.replace(/ +/g, ' ');
    });
  }

  async gamePidOf(host: FaultHost): Promise<number> {
    return (JSON.parse(await readFile(join(host.dir, 'servers', host.serverId, 'state', 'run.json'), 'utf8')) as { gamePid: number }).gamePid;
  }

  /**
   * The Controller slot driving the Node, asked of `via`: a Controller that is up holds its live
   * lease, shows it HEALTHY, and answers an operation on its server (a file listing reaches the Agent).
   */
  async drivenBy(host: FaultHost, via: ControllerSlot): Promise<ControllerSlot | undefined> {
    const not = (why: string) => {
      this.notDriven.set(host.nodeId, `${host.nodeId} asked of Controller ${via.index}: ${why}`);
      return undefined;
    };
    // A Controller stopped under the probe would hold it until it goes on: it says nothing then.
    const inTime = { signal: AbortSignal.timeout(probeTimeoutMs) };
    const seen = await this.apiOf(via).get<Node>(`/nodes/${host.nodeId}`, inTime);
    const id = seen.status === 200 ? seen.body.status.controllerId : undefined;
    if (!id) return not(`no controllerId (${seen.status})`);
    const cluster = await this.apiOf(via).get<Static<typeof Cluster>>('/cluster', inTime);
    if (cluster.status !== 200) return not(`GET /cluster ${cluster.status}`);
    const entry = cluster.body.controllers.find((c) => c.id === id);
    const holder = this.up.find((s) => entry?.httpAddress === `127.0.0.1:${s.process.httpPort}`);
    if (!holder) return not(`its holder ${id} is ${entry ? `at ${entry.httpAddress ?? '?'}, not up` : 'not a live Controller'}`);
    const node = await this.apiOf(holder).get<Node>(`/nodes/${host.nodeId}`, inTime);
    if (node.status !== 200 || node.body.status.connectionState !== 'HEALTHY' || node.body.status.controllerId !== id) {
      return not(`on its holder (Controller ${holder.index}): ${node.status === 200 ? `${node.body.status.connectionState} ${node.body.status.controllerId ?? ''}` : node.status}`);
    }
    if (host.serverId) {
      const files = await this.apiOf(holder).get(`/servers/${host.serverId}/files?path=.`, inTime);
      if (files.status !== 200) return not(`a file listing through its holder (Controller ${holder.index}): ${files.status} ${files.text.slice(0, 400)}`);
    }
    this.notDriven.delete(host.nodeId);
    this.lastHolder.set(host.nodeId, holder.index);
    return holder;
  }

  /** The slot each Node was last seen driven by (a probe's finding). */
  readonly lastHolder = new Map<string, number>();

  /** Why each Node was not driven at its last probe (for a timeout's message). */
  readonly notDriven = new Map<string, string>();

  /** Where a run's logs go when `CAIRN_FAULTS_LOG_DIR` is set: one file per process, for reading a failure after it. */
  private async keepLogs(): Promise<void> {
    const dir = process.env.CAIRN_FAULTS_LOG_DIR;
    if (!dir) return;
    await mkdir(dir, { recursive: true });
    for (const slot of this.slots) {
      for (const [i, text] of [...slot.pastLogs, slot.process.stderr].entries()) await writeFile(join(dir, `controller-${slot.index}.${i}.log`), text);
    }
    for (const [i, host] of this.hosts.entries()) await writeFile(join(dir, `agent-${i}.log`), host.agent.stderr);
  }

  /** Whether every Node (of `hosts`) is driven by a Controller that is up, asked of one that is up. */
  async allDriven(hosts = this.hosts): Promise<boolean> {
    return (await this.drivenNow(hosts)).length === hosts.length;
  }

  /** Those of `hosts` driven by a Controller that is up, asked of one that is up. */
  async drivenNow(hosts: FaultHost[]): Promise<FaultHost[]> {
    const via = this.up[Math.floor(Math.random() * this.up.length)] as ControllerSlot | undefined;
    if (!via) return [];
    const viaProcess = via.process;
    const holders = await Promise.all(hosts.map((h) => this.drivenBy(h, via)));
    // A probe that straddled a fault of its own Controller says nothing.
    if (via.state !== 'up' || via.process !== viaProcess) return [];
    return hosts.filter((_, i) => holders[i]?.state === 'up');
  }

  async close(): Promise<void> {
    await this.keepLogs();
    for (const host of this.hosts) {
      await host.agent.kill();
      await killGames(host.dir);
    }
    for (const slot of this.slots) await slot.process.kill('SIGKILL');
    await this.balancer?.close();
    await this.database.drop();
    for (const dir of this.dirs) await rm(dir, { recursive: true, force: true });
  }

  private async tempDir(prefix: string): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    this.dirs.push(dir);
    return dir;
  }

  private async launch(dataDir: string, grpcPort: number): Promise<ControllerProcess> {
    const started = await ControllerProcess.start(dataDir, grpcPort, {
      // A clean restart must not wait on the watchers' open streams for the default 10 s.
      extraArgs: ['--secrets-key-file', this.secretsKeyFile, '--sftp-port', 'off', '--lease-ttl-seconds', String(this.leaseTtlSeconds), '--shutdown-timeout', '1'],
      env: { MONGODB_URI: this.storeUriOf(await this.database.uri()), CAIRN_LOG_LEVEL: 'info' },
    });
    this.listenForChanges(started.child.stderr);
    return started;
  }

  private async build(controllers: number, agents: number): Promise<void> {
    const first = await this.tempDir('cairn-faults-');
    this.secretsKeyFile = join(first, 'shared-secrets.key');
    for (let i = 0; i < controllers; i++) {
      const dataDir = i === 0 ? first : await this.tempDir('cairn-faults-');
      const process = await this.launch(dataDir, 0);
      this.slots.push({ index: i, dataDir, grpcPort: process.grpcPort, process, state: 'up', pastLogs: [] });
      if (i === 0) this.cookie = (await setUpAdminOf(process, first)).cookie;
    }
    this.balancer = await TcpBalancer.start(this.slots.map((s) => s.grpcPort));
    const admin = this.apiOf(this.slots[0]);
    const teamId = (await admin.post<Team>('/teams', { name: 'Faults' })).body.id;
    await Promise.all(Array.from({ length: agents }, async (_, i) => {
      const issued = (await admin.post<EnrollmentIssued>('/nodes', { name: `node-${i}` })).body;
      const dir = await this.tempDir('cairn-faults-agent-');
      const agent = AgentProcess.start({ grpcPort: this.balancer!.port, dataDir: dir, gamePorts: await privateGamePorts(), enrollmentToken: issued.enrollmentToken, extra: agentArgs });
      const host: FaultHost = { nodeId: issued.node.id, dir, agent, serverId: '', gamePid: 0 };
      this.listenForChanges(agent.child.stderr);
      this.hosts.push(host);
      const holder = await waitFor(() => this.drivenBy(host, this.slots[0]), { timeoutMs: 90_000, what: `${host.nodeId} driven` });
      // The holder may not know a Node enrolled after it started, and the others place on the status it stored, which
      // may lag its first hello: whichever accepts first.
      const body = { name: `game-${i}`, teamId, nodeId: host.nodeId, software: simcraft, resources: { cpuMillis: serverCpuMillis, memoryBytes: serverMemory } };
      let refusal = '';
      const created = await waitFor(async () => {
        for (const via of [holder, this.slots[0]]) {
          const res = await this.apiOf(via).post<ServerDetail>('/servers', body);
          if (res.status === 201) return res;
          refusal = `${res.status} ${res.text}`;
        }
        return undefined;
      }, { timeoutMs: 60_000, intervalMs: 500, what: `game-${i} created`, explain: () => refusal });
      host.serverId = created.body.id;
      await waitForServer(admin, host.serverId, (s) => s.phase === 'READY', `${host.serverId} READY`, 90_000);
      const started = await admin.post(`/servers/${host.serverId}/start`);
      if (started.status !== 202) throw new Error(`starting game-${i}: ${started.status} ${started.text}`);
      await waitForServer(admin, host.serverId, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', `${host.serverId} RUNNING`, 90_000);
      host.gamePid = await this.gamePidOf(host);
    }));
  }
}

/** What Controllers and Agents log when a Node's link or lease changes hands. */
const changeEvents = /"event":"(connected|disconnected|lease_term_raised|controller_silent|agent_connected|agent_disconnected|lease_gained|lease_lost|leases_lost)"/;

function jsonLines(text: string): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a line cut by the process's death
    }
  }
  return lines;
}
