import { access } from 'node:fs/promises';
import { parseEgressRule, type EgressRule } from '../../shared/egress-rule.js';
import { KeyedMutex } from '../../shared/keyed-mutex.js';
import type { DesiredServer, DesiredState, ServerStatus } from '../../shared/link/messages.js';
import type { Logger } from '../../shared/logger.js';
import { InvalidTemplateError, parseTemplateJson } from '../../shared/template-check.js';
import type { Template } from '../../shared/templates.js';
import { DiskAccounts, type DiskMode } from '../disk/disk-accounts.js';
import { AgentError } from '../errors.js';
import type { GameBoxes } from '../isolation/game-boxes.js';
import type { AgentLinkClient } from '../link/link-client.js';
import type { ServerRuntime } from '../runtime/runtime-types.js';
import type { ServerTarget } from './server-target.js';
import type { Installer } from './installer.js';
import type { HostSettings } from './launch.js';
import type { AgentServerState } from './runtime-state-of.js';
import { makeServerHome } from './server-home.js';
import { serverHome, serverRoot } from './server-paths.js';
import { ServerRunner } from './server-runner.js';
import type { SleeperPool } from '../sleeper/sleeper-pool.js';

export interface ReconcilerDeps {
  dataDir: string;
  runtime: ServerRuntime;
  installer: Installer;
  boxes: GameBoxes;
  host: HostSettings;
  logger: Logger;
  /** First automatic-restart delay after a crash. */
  restartBackoffMs: number;
  /** How often running servers' CPU, memory and players are sampled, reported and kept in their history. */
  statusIntervalMs: number;
  /** How disk limits are held here; accounting when not given. */
  diskMode?: DiskMode;
  beforeStart?: (desired: ServerTarget, serverDir: string, template: Template) => Promise<void>;
  /** The Node's sleeping ports (opened at the Agent's start for servers that slept). */
  sleepers: SleeperPool;
  /** Whether a copy holds the server still now (a quiesced backup): an empty server does not fall asleep under it. */
  heldForCopy?: (serverId: string) => boolean;
}

/** What the reconciler needs of the link: desired state in, server status out. */
export type ReconcilerLink = Pick<AgentLinkClient, 'onDesiredState' | 'onDesiredChange' | 'onConnected' | 'sendServerStatus'>;

export function fromLink(d: DesiredServer): ServerTarget {
  return {
    serverId: d.serverId,
    generation: d.generation,
    state: d.desiredState.replace('DESIRED_RUNTIME_STATE_', '') as ServerTarget['state'],
    software: { template: d.software?.template ?? '', version: d.software?.version ?? '', ...(d.software?.build ? { build: d.software.build } : {}) },
    resources: { cpuMillis: d.resources?.cpuMillis ?? 0, memoryBytes: d.resources?.memoryBytes ?? 0 },
    ...(d.resources?.diskBytes ? { diskLimitBytes: d.resources.diskBytes } : {}),
    gamePort: d.gamePort,
    inNetwork: d.inNetwork,
    restartPolicy: { maxRestarts: d.restartPolicy?.maxRestarts ?? 0, windowSeconds: d.restartPolicy?.windowSeconds ?? 60 },
    acknowledgedConditions: d.acknowledgedConditionIds,
    restartNonce: d.restartNonce,
    plugins: d.plugins,
    ...(d.network ? { network: d.network } : {}),
    // The Controller checks entries by the same rules: one unread here is a newer Controller's form, and allows nothing.
    egressAllow: d.egressAllow.map((raw) => parseEgressRule(raw)).filter((r): r is EgressRule => r !== undefined),
    ...(d.sleep && d.sleep.afterEmptySeconds > 0 ? { sleep: { afterEmptySeconds: d.sleep.afterEmptySeconds, wakeOnJoin: d.sleep.wakeOnJoin } } : {}),
    wakeNonce: d.wakeNonce,
  };
}

/** The server's template, checked on arrival: the Agent runs nothing from a template it has not validated. */
function templateOf(d: DesiredServer): { template: Template } | { refused: string } {
  if (!d.templateJson) return { refused: 'the Controller does not know the template' };
  try {
    return { template: parseTemplateJson(d.templateJson) };
  } catch (e) {
    if (e instanceof InvalidTemplateError) return { refused: e.problem };
    throw e;
  }
}

const exists = (path: string) => access(path).then(() => true, () => false);

/** A server this Node has, as copying its files needs it. */
export interface ServerOnNode {
  root: string;
  /** True once its ready line appeared and until it is asked to stop: it takes console commands. */
  running: boolean;
  template: Template;
}

/** While in these states a server's process runs, or is about to (re)start, or its files are being installed. */
const busyStates: ReadonlySet<AgentServerState> = new Set(['probing', 'installing', 'launching', 'starting', 'running', 'stopping', 'stopFailed', 'crashed', 'backoff', 'removing']);

/**
 * The Agent's reconciler: takes the Node's full desired state, and each change of one server's,
 * as they arrive (one at a time, in order) and keeps one runner per server. Game processes belong to their supervisors, so an Agent restart finds them
 * running and each runner adopts its own.
 */
export class Reconciler {
  private readonly runners = new Map<string, ServerRunner>();
  /** Per server: held by a start until its process runs, and by a replacement of its files. */
  private readonly files = new KeyedMutex();
  private link?: ReconcilerLink;
  /** Desired states and changes are applied one after the other, in the order they came. */
  private applying: Promise<void> = Promise.resolve();
  private statusTimer?: NodeJS.Timeout;
  /** What each server's files hold, reported as its usage.diskBytes and held against its limit. */
  readonly disk: DiskAccounts;
  /** A round of walks still under way when the next tick comes is not doubled. */
  private measuringDisks = false;
  /** Servers that were busy at the last round of walks: one that turned quiet since is walked at once. */
  private readonly busyAtLastWalk = new Set<string>();

  constructor(private readonly deps: ReconcilerDeps) {
    this.disk = new DiskAccounts({ mode: deps.diskMode ?? 'accounting', minGapMs: deps.statusIntervalMs });
    deps.runtime.onExit((serverId, exit, lastLines) => this.runners.get(serverId)?.exited(exit, lastLines));
    deps.runtime.onRecordFailed((serverId, path, error) => this.runners.get(serverId)?.recordFailed(path, error));
  }

  attach(link: ReconcilerLink): void {
    this.link = link;
    link.onDesiredState((state) => this.enqueue(() => this.apply(state)));
    link.onDesiredChange((serverId, server) => this.enqueue(() => this.applyChange(serverId, server)));
    link.onConnected(() => this.runners.forEach((r) => r.sendStatus()));
    this.statusTimer = setInterval(() => {
      this.runners.forEach((r) => void r.sampleStatus());
      void this.measureDisks();
    }, this.deps.statusIntervalMs);
    this.statusTimer.unref();
  }

  serverIds(): string[] {
    return [...this.runners.keys()];
  }

  runner(serverId: string): ServerRunner | undefined {
    return this.runners.get(serverId);
  }

  /** The server when this Node has it (a runner that has not removed it). */
  serverOnNode(serverId: string): ServerOnNode | undefined {
    const runner = this.runners.get(serverId);
    if (!runner || runner.finished) return undefined;
    return { root: runner.root, running: runner.state === 'running', template: runner.currentTemplate };
  }

  /**
   * Runs `work` on the server's root (created if new: a migration's target) while no process of
   * the server runs here and none can start; SERVER_RUNNING otherwise. A runner the server has
   * takes the new files as installed; one that had removed the server is forgotten, so the next
   * desired state naming the server adopts the files as a new runner.
   */
  async replaceFiles(serverId: string, work: (root: string) => Promise<void>): Promise<void> {
    await this.files.run(serverId, async () => {
      const runner = this.runners.get(serverId);
      const state = runner && !runner.finished ? runner.state : undefined;
      if (state && busyStates.has(state)) throw new AgentError('SERVER_RUNNING', `The server is ${state} on this Node; stop it first.`);
      const status = await this.deps.runtime.status(serverId);
      if (status.state === 'running' || status.state === 'stopping') throw new AgentError('SERVER_RUNNING', 'The server\'s process runs on this Node; stop it first.');
      await makeServerHome(this.deps.dataDir, serverId);
      await work(serverRoot(this.deps.dataDir, serverId));
      if (runner?.finished) this.runners.delete(serverId);
      else runner?.filesReplaced();
    });
    await this.measureDisk(serverId);
  }

  /**
   * Walks the trees that are due, one after another, and reports each server whose bytes changed.
   * A server whose process runs (or whose files are being installed) is walked every status
   * interval; a quiet one once as it turns quiet (a game saves its world as it stops), then every
   * minute: walking a Node's stopped servers every interval cost most of an idle Agent's CPU.
   */
  private async measureDisks(): Promise<void> {
    if (this.measuringDisks) return;
    this.measuringDisks = true;
    try {
      for (const runner of [...this.runners.values()]) {
        const quiet = !busyStates.has(runner.state);
        const turnedQuiet = quiet && this.busyAtLastWalk.delete(runner.serverId);
        if (!quiet) this.busyAtLastWalk.add(runner.serverId);
        if (!runner.finished && (turnedQuiet || this.disk.due(runner.serverId, quiet))) await this.measureDisk(runner.serverId);
      }
    } finally {
      this.measuringDisks = false;
    }
  }

  /** Walks the server's tree now (also after a write through the API) and reports a change. */
  async measureDisk(serverId: string): Promise<void> {
    const runner = this.runners.get(serverId);
    if (!runner || runner.finished) return;
    try {
      if (await this.disk.measure(serverId, runner.root)) runner.sendStatus();
    } catch (err) {
      this.deps.logger.warn({ err, serverId }, 'measuring what the server\'s files hold failed');
    }
  }

  /** The server's disk limit (resources.diskBytes); undefined: none. */
  private diskLimitOf(serverId: string): number | undefined {
    return this.runners.get(serverId)?.actor.getSnapshot().context.desired.diskLimitBytes;
  }

  /** Bytes the server's files may still grow by under its limit (by the last walk); undefined: no limit or not measured yet. */
  diskRoom(serverId: string): number | undefined {
    return this.disk.room(serverId, this.diskLimitOf(serverId));
  }

  /** Every report carries what the server's files hold, also while its game is stopped, and DISK_QUOTA_EXCEEDED while past its limit. */
  private report = (status: ServerStatus) => {
    if (status.removed) {
      this.disk.forget(status.serverId);
      this.busyAtLastWalk.delete(status.serverId);
    }
    const diskBytes = status.removed ? 0 : this.disk.bytes(status.serverId) ?? 0;
    const over = status.removed ? undefined : this.disk.condition(status.serverId, this.diskLimitOf(status.serverId));
    this.link?.sendServerStatus({
      ...status,
      usage: { cpuMillis: 0, memoryBytes: 0, ...status.usage, diskBytes },
      conditions: over ? [...status.conditions, over] : status.conditions,
    });
  };

  private enqueue(work: () => Promise<void>): void {
    this.applying = this.applying.then(work).catch((err: unknown) => this.deps.logger.error({ err }, 'applying the desired state failed'));
  }

  async apply(state: DesiredState): Promise<void> {
    const listed = new Set<string>();
    for (const entry of state.servers) {
      listed.add(entry.serverId);
      await this.applyServer(entry);
    }
    for (const [id, runner] of this.runners) {
      if (!listed.has(id) && runner.finished) this.runners.delete(id);
    }
  }

  /** One server's change: only that server is reconciled; `server` null is as if a full state left it out. */
  async applyChange(serverId: string, server: DesiredServer | null): Promise<void> {
    if (server) await this.applyServer(server);
    else if (this.runners.get(serverId)?.finished) this.runners.delete(serverId);
  }

  private async applyServer(entry: DesiredServer): Promise<void> {
    const desired = fromLink(entry);
    const checked = templateOf(entry);
    const runner = this.runners.get(desired.serverId);
    if (runner) {
      // A running server keeps the template it has when the Controller no longer sends a valid one.
      if ('refused' in checked && entry.templateJson) this.deps.logger.warn({ serverId: desired.serverId, problem: checked.refused }, 'template refused; keeping the previous one');
      if (runner.finished) runner.sendStatus();
      else runner.desired(desired, 'template' in checked ? checked.template : undefined);
      return;
    }
    // A server deleted here already (the Controller has not heard yet) must not be installed again.
    if (desired.state === 'DELETED' && !(await exists(serverHome(this.deps.dataDir, desired.serverId)))) {
      this.report(removedStatus(desired));
      return;
    }
    if ('refused' in checked) {
      this.deps.logger.warn({ serverId: desired.serverId, problem: checked.refused }, 'template refused; the server is not installed');
      this.report(refusedStatus(desired, checked.refused));
      return;
    }
    this.runners.set(desired.serverId, new ServerRunner({ ...this.deps, backoffBaseMs: this.deps.restartBackoffMs, report: this.report, files: this.files }, desired, checked.template));
  }

  /** Saves every server's usage history, so the Agent's next run takes it up (at a stop, before `stop`). */
  async saveHistories(): Promise<void> {
    await Promise.all([...this.runners.values()].filter((r) => !r.finished).map((r) => r.sampler.save()));
  }

  stop(): void {
    clearInterval(this.statusTimer);
    for (const runner of this.runners.values()) runner.actor.stop();
    void this.deps.sleepers.closeAll();
    this.deps.runtime.close();
  }
}

function absentStatus(desired: ServerTarget): ServerStatus {
  return {
    serverId: desired.serverId, observedGeneration: desired.generation, runtimeState: 'RUNTIME_STATE_UNSPECIFIED', installed: false,
    usage: null, conditions: [], ports: [], startedAt: '', removed: false, restarting: false, installError: '', startedInNetwork: false, lastCrash: null, portInUse: 0, pid: 0, players: null, sleeping: null, lastWake: null,
  };
}

const removedStatus = (desired: ServerTarget): ServerStatus => ({ ...absentStatus(desired), removed: true });

/** A server whose template was refused is never installed; the Controller shows why (INSTALL_FAILED). */
const refusedStatus = (desired: ServerTarget, problem: string): ServerStatus =>
  ({ ...absentStatus(desired), installError: `the server's template was refused: ${problem}` });
