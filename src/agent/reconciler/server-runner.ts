import { readFile, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { createActor, type Actor } from 'xstate';
import { KeyedMutex } from '../../shared/keyed-mutex.js';
import type { ServerNetwork, ServerStatus } from '../../shared/link/messages.js';
import type { Logger } from '../../shared/logger.js';
import type { Template } from '../../shared/templates.js';
import type { GameBoxes } from '../isolation/game-boxes.js';
import { isolationUnavailableReason } from '../isolation/isolation-mode.js';
import { runtimeRefusal } from '../java/java-choice.js';
import { isRuntimeError } from '../runtime/errors.js';
import { writeFileAtomic } from '../runtime/state-dir.js';
import type { GameExit, OutputLine, ServerRuntime } from '../runtime/runtime-types.js';
import { endedWith, isCrash } from './crash-record.js';
import type { AppliedSpec, ServerTarget } from './server-target.js';
import { readInstalled, type Installer } from './installer.js';
import { prepareSoftwareMount } from './software-mount.js';
import { removeEntryOf } from '../files/beneath.js';
import { networkSettingsForStart, recordMembership } from '../network/network-settings.js';
import { launchSpec, placeholderValues, type HostSettings, type ServerDirs } from './launch.js';
import { writeManagedConfig } from './managed-config.js';
import { agentServerMachine, type ProbeResult } from './server-machine.js';
import { bindRunner, runnerMachine, type RunnerEffects } from './runner-machine.js';
import type { AgentServerState } from './runtime-state-of.js';
import { makeServerHome } from './server-home.js';
import { appliedFile, serverHome, serverRoot } from './server-paths.js';
import { portHeld, portInUseMessage } from './port-check.js';
import type { PortCheckResult } from './port-in-use.js';
import { statusReport } from './status-report.js';
import { recordFailureCondition } from './record-failure.js';
import type { AgentCondition } from './start-refusal.js';
import { historyFileName } from '../status/history-file.js';
import { pingHostFor, StatusSampler } from '../status/status-sampler.js';
import { readSleepMarker } from '../sleeper/sleep-marker.js';
import type { SleeperPool } from '../sleeper/sleeper-pool.js';
import { ServerSleep } from './server-sleep.js';

export interface RunnerDeps {
  dataDir: string;
  runtime: ServerRuntime;
  installer: Installer;
  /** Puts each start in the server's box, as far as this Node enforces one. */
  boxes: GameBoxes;
  host: HostSettings;
  logger: Logger;
  backoffBaseMs: number;
  /** How often `sampleStatus` is called: its usage history's fine interval. */
  statusIntervalMs: number;
  /** Sends the server's status to the Controller (dropped while disconnected; resent on connect). */
  report(status: ServerStatus): void;
  /** Hooks run before every start, e.g. putting installed plugins in place. */
  beforeStart?: (desired: ServerTarget, serverDir: string, template: Template) => Promise<void>;
  /** Held by a start until its process runs, and by whatever replaces the server's files. */
  files: KeyedMutex;
  /** The Node's sleeping ports: this server's while it sleeps. */
  sleepers: SleeperPool;
  heldForCopy?: (serverId: string) => boolean;
}

/**
 * One server on this Node: its reconciler machine with the real effects (install its software,
 * write managed config, launch through the supervisor, stop, remove), the ready-line watch that
 * turns STARTING into RUNNING, and a status report on every change.
 */
export class ServerRunner {
  readonly actor: Actor<typeof agentServerMachine>;
  private template: Template;
  /** CPU, memory and players sampled while the game runs, and their history. */
  readonly sampler: StatusSampler;
  private startedAt = '';
  /** The game's process id while it runs (inside its box when boxed); 0 otherwise. */
  private pid = 0;
  /** Config writes at a start and live route changes, one at a time. */
  private readonly configLock = new KeyedMutex();
  /** The route set last written into a proxy's config. */
  private routesWritten?: string;
  /** The held game port last logged at warn level. */
  private portHeldLogged?: number;
  /** Why the game's last exit could not be recorded on disk; stands until a start succeeds. */
  private recordFailure?: AgentCondition;
  /** When it goes to sleep, and its sleeping port and marker. */
  private readonly sleep: ServerSleep;
  /** What the machine's invoked actors do for this server (see `runnerMachine`). */
  private readonly effects: RunnerEffects = {
    probe: (desired) => this.probe(desired),
    install: async (desired) => {
      await makeServerHome(this.deps.dataDir, this.serverId);
      await this.deps.installer.install(this.root, this.template, desired.software.version);
    },
    checkPort: (desired) => this.checkPort(desired),
    start: (desired) => this.deps.files.run(this.serverId, () => this.launch(desired)).catch((err: unknown) => {
      this.deps.logger.warn({ err, serverId: this.serverId }, 'the game could not be started; counted as a crash');
      throw err;
    }),
    watchReady: (ready) => this.watchForReady(ready),
    stop: () => this.stop(),
    remove: () => this.remove(),
    sleep: (desired, since, wake) => this.sleep.open(desired, since, this.sampler.lastGame, wake),
  };

  constructor(private readonly deps: RunnerDeps, desired: ServerTarget, template: Template) {
    this.template = template;
    this.sleep = new ServerSleep({
      home: serverHome(deps.dataDir, desired.serverId), bindAddress: deps.host.bindAddress, sleepers: deps.sleepers, logger: deps.logger,
      heldForCopy: () => deps.heldForCopy?.(desired.serverId) === true,
    }, desired.serverId);
    this.sampler = new StatusSampler({
      usage: () => this.deps.runtime.usage(this.serverId), intervalMs: deps.statusIntervalMs, pingHost: pingHostFor(deps.host.bindAddress),
      historyFile: join(serverHome(deps.dataDir, desired.serverId), historyFileName), logger: deps.logger,
    });
    // Before the machine starts: the allowances are in place when its first start makes the namespace.
    this.allowEgress(desired);
    const refusal = deps.boxes.refusal;
    const startRefusal = refusal === null ? undefined
      : { id: `${desired.serverId}:isolation-unavailable`, reason: isolationUnavailableReason, message: refusal, since: new Date().toISOString() };
    this.actor = createActor(runnerMachine, {
      input: { desired, backoffBaseMs: deps.backoffBaseMs, startRefusal, runtimeRefusal: runtimeRefusal(desired.serverId, template, deps.host.javas) },
    });
    // Before it starts: its first state invokes the probe, which finds this runner through the actor's system.
    bindRunner(this.actor.system, this.effects);
    this.actor.subscribe({
      next: () => {
        this.sleep.left(this.state);
        this.sendStatus();
      },
      error: (err) => deps.logger.error({ err, serverId: desired.serverId }, 'server reconciler failed'),
    });
    this.actor.start();
  }

  get serverId(): string {
    return this.actor.getSnapshot().context.desired.serverId;
  }

  get root(): string {
    return serverRoot(this.deps.dataDir, this.serverId);
  }

  /** The root, and the software as the game sees it (in its view, or where it lies when it has none). */
  private get dirs(): ServerDirs {
    return { root: this.root, software: this.deps.boxes.softwareSeenAt(this.root) };
  }

  /** The host settings as the game sees them: in a network of its own it binds every address it has. */
  private hostFor(starting: boolean): HostSettings {
    return { ...this.deps.host, bindAddress: this.deps.boxes.gameBindAddress(this.serverId, this.deps.host.bindAddress, starting) };
  }

  get finished(): boolean {
    return this.actor.getSnapshot().status === 'done';
  }

  get state(): AgentServerState {
    return this.actor.getSnapshot().value;
  }

  /** The template in use (the newest valid one the Controller sent). */
  get currentTemplate(): Template {
    return this.template;
  }

  /** The server's files were replaced and its software installed by someone else (a committed stage). */
  filesReplaced(): void {
    this.actor.send({ type: 'FILES_REPLACED' });
  }

  /** A new desired state; `template` replaces the one in use when the Controller sent a valid one. */
  desired(desired: ServerTarget, template?: Template): void {
    if (template) this.template = template;
    this.allowEgress(desired);
    const refused = runtimeRefusal(desired.serverId, this.template, this.deps.host.javas, this.actor.getSnapshot().context.runtimeRefusal);
    this.actor.send({ type: 'DESIRED', desired, at: Date.now(), runtimeRefusal: refused });
    if (this.template.kind === 'PROXY') {
      this.applyRoutes().catch((err: unknown) => this.deps.logger.error({ err, serverId: desired.serverId }, 'applying new routes failed'));
    }
  }

  private allowEgress(desired: ServerTarget): void {
    this.deps.boxes.allowEgress(desired.serverId, desired.egressAllow ?? [])
      .catch((err: unknown) => this.deps.logger.error({ err, serverId: desired.serverId }, 'applying the server\'s egress allowances failed'));
  }

  /**
   * New routes reach a running proxy at once: its config is rewritten and, for software that
   * does not watch the file, its reload command typed. The process keeps running and keeps its
   * players; a stopped proxy gets the routes at its next start.
   */
  private async applyRoutes(): Promise<void> {
    await this.configLock.run('config', async () => {
      const snapshot = this.actor.getSnapshot();
      const state = snapshot.value;
      const target = snapshot.context.desired;
      if ((state !== 'running' && state !== 'starting' && state !== 'launching') || routesKey(target.network) === this.routesWritten) return;
      await writeManagedConfig(this.template, placeholderValues(this.template, target, this.dirs, this.hostFor(false)), this.root, target.network, {}, this.deps.boxes.identityOf(this.serverId));
      this.routesWritten = routesKey(target.network);
      const reload = this.template.network?.reloadCommand;
      if (reload && state === 'running') await this.deps.runtime.sendCommand(this.serverId, reload);
    });
  }

  exited(exit: GameExit, lastLines: readonly OutputLine[]): void {
    this.startedAt = '';
    this.pid = 0;
    this.sampler.ended();
    this.deps.boxes.exited(this.serverId).catch((err: unknown) => this.deps.logger.warn({ err, serverId: this.serverId }, 'unpublishing the game\'s ports failed'));
    const state = this.state;
    if (isCrash(exit.code, exit.signal) && state !== 'stopping' && state !== 'removing') {
      this.deps.logger.warn({ serverId: this.serverId, exitCode: exit.code, signal: exit.signal, cause: exit.cause, state }, `the game crashed (${endedWith(exit)})`);
    }
    const lines = lastLines.map((line) => ({ text: line.text, at: line.at ?? Date.now() }));
    this.actor.send({ type: 'EXITED', code: exit.code, signal: exit.signal, at: Date.now(), lastLines: lines, oomKilled: exit.oomKilled === true });
  }

  /** The game's exit could not be recorded (a full disk): the server says where and in which step, so the operator can make room. */
  recordFailed(path: string, error: unknown): void {
    const step = this.state === 'stopping' ? 'Stopping the game' : 'Collecting the game\'s exit';
    void recordFailureCondition(this.serverId, step, path, error, new Date()).then((condition) => {
      this.recordFailure = condition;
      this.sendStatus();
    });
  }

  /** Samples the running game's usage and (once it is up) its players, then reports them. */
  async sampleStatus(): Promise<void> {
    const snapshot = this.actor.getSnapshot();
    const state = snapshot.value;
    if (state !== 'running' && state !== 'starting') return;
    await this.sampler.sample({
      port: snapshot.context.desired.gamePort,
      ping: state === 'running' && this.template.status?.protocol === 'minecraft-slp',
      ...(this.startedAt ? { startedAtMs: Date.parse(this.startedAt) } : {}),
    });
    this.sendStatus();
    const { value, context } = this.actor.getSnapshot();
    if (this.sleep.emptyLongEnough(value, context.desired, this.sampler.players?.online)) this.actor.send({ type: 'EMPTY' });
  }

  sendStatus(): void {
    const { value: state, context } = this.actor.getSnapshot();
    this.deps.report(statusReport(state, context, {
      // Until its probe is done, a server the Agent found asleep (its port answered since the Agent's start) is reported asleep.
      foundAsleep: state === 'probing' ? this.deps.sleepers.sleepingSince(context.desired.serverId) : undefined,
      usage: this.sampler.usage, players: this.sampler.players, startedAt: this.startedAt, pid: this.pid, recordFailure: this.recordFailure,
    }));
  }

  private async probe(desired: ServerTarget): Promise<ProbeResult> {
    const installed = await readInstalled(this.root);
    const isInstalled = installed?.template === desired.software.template && installed.version === desired.software.version;
    const status = await this.deps.runtime.status(this.serverId);
    if (status.state === 'running' || status.state === 'stopping') {
      this.startedAt = status.startedAt;
      this.pid = status.pid;
      return { installed: true, running: true, applied: await this.readApplied() };
    }
    // A sleeping server's game was stopped to sleep: its last exit is that stop, not news.
    const marker = await readSleepMarker(serverHome(this.deps.dataDir, this.serverId));
    if (marker) {
      this.sleep.found(marker);
      return { installed: isInstalled, running: false, asleep: { since: marker.since, wakeNonce: marker.wakeNonce } };
    }
    if (status.state === 'exited') return { installed: isInstalled, running: false, missedExit: { code: status.exit.code, signal: status.exit.signal } };
    return { installed: isInstalled, running: false };
  }

  /** Whether another program holds the game port. The server's own game (one to adopt) holds it by right. */
  private async checkPort(desired: ServerTarget): Promise<PortCheckResult> {
    // The server's own sleeping port is handed to the game: never counted as another program's.
    await this.deps.sleepers.close(this.serverId);
    const status = await this.deps.runtime.status(this.serverId);
    if (status.state === 'running' || status.state === 'stopping' || !desired.gamePort) return { held: false };
    const host = this.deps.host.bindAddress;
    if (!(await portHeld(desired.gamePort, host))) return { held: false };
    // Said once per port: a held port is checked again every few seconds until it is free or the server moves.
    const log = this.portHeldLogged === desired.gamePort ? this.deps.logger.debug : this.deps.logger.warn;
    log.call(this.deps.logger, { serverId: this.serverId, port: desired.gamePort, host }, 'the game port is held by another program; the game is not started');
    this.portHeldLogged = desired.gamePort;
    return { held: true, message: portInUseMessage(desired.gamePort, host) };
  }

  private async readApplied(): Promise<AppliedSpec | undefined> {
    try {
      return JSON.parse(await readFile(appliedFile(this.deps.dataDir, this.serverId), 'utf8')) as AppliedSpec;
    } catch {
      return undefined;
    }
  }

  /**
   * Everything up to a running process, while nobody replaces the server's files. A game of the
   * server already running (another shim serves its state dir) is adopted, never doubled.
   */
  private async launch(desired: ServerTarget): Promise<void> {
    await this.deps.sleepers.close(this.serverId);
    await makeServerHome(this.deps.dataDir, this.serverId);
    if (await prepareSoftwareMount(this.root)) this.deps.logger.info({ serverId: this.serverId }, 'moved what stood at the root\'s .cairn out of the game\'s reach (software now lives beside the root)');
    // A game adopted across an upgrade from a version that kept the software in the root has none beside it yet.
    if (!(await readInstalled(this.root))) await this.deps.installer.install(this.root, this.template, desired.software.version);
    const values = placeholderValues(this.template, desired, this.dirs, this.hostFor(true));
    await this.configLock.run('config', async () => {
      // Routes may have changed since this start began: the newest ones go in.
      const network = this.actor.getSnapshot().context.desired.network;
      const owner = this.deps.boxes.identityOf(this.serverId);
      await writeManagedConfig(this.template, values, this.root, network, await networkSettingsForStart(this.template, desired, this.root, owner), owner);
      if (this.template.kind === 'GAME_SERVER') await recordMembership(this.root, desired);
      this.routesWritten = routesKey(network);
    });
    await this.deps.beforeStart?.(desired, this.root, this.template);
    const applied = this.actor.getSnapshot().context.applied;
    const file = appliedFile(this.deps.dataDir, this.serverId);
    await writeFileAtomic(file, JSON.stringify(applied));
    const boxed = await this.deps.boxes.box(this.serverId, this.root, desired.resources, desired.gamePort ? [desired.gamePort] : [], launchSpec(this.template, values, this.root));
    let status;
    try {
      status = await this.deps.runtime.start(this.serverId, boxed.launch, boxed.box);
    } catch (e) {
      if (!isRuntimeError(e, 'already_running')) throw e;
      this.deps.logger.warn({ serverId: this.serverId }, 'a game of the server was running already; adopted it');
      status = await this.deps.runtime.status(this.serverId);
    }
    this.recordFailure = undefined;
    this.startedAt = status.state === 'running' ? status.startedAt : new Date().toISOString();
    this.pid = status.state === 'running' || status.state === 'stopping' ? status.pid : 0;
  }

  /**
   * Follows the console until the template's ready line appears (replaying what was printed
   * before the attach), for as long as the machine waits for it: the returned function ends the
   * watch. A failed attach is tried again; the game's exit, not the watch, ends a game that died.
   */
  private watchForReady(onReady: () => void): () => void {
    const ready = new RegExp(this.template.readyPattern);
    let over = false;
    let detach: (() => void) | undefined;
    let retry: NodeJS.Timeout | undefined;
    const attach = () => {
      this.deps.runtime.attach(this.serverId, { tail: 200 }, (line) => {
        if (over || !ready.test(line.text)) return;
        over = true;
        detach?.();
        onReady();
      }).then((d) => {
        if (over) d();
        else detach = d;
      }, (err: unknown) => {
        if (over) return;
        this.deps.logger.debug({ err, serverId: this.serverId }, 'watching for the ready line failed; trying again');
        retry = setTimeout(attach, readyWatchRetryMs);
      });
    };
    attach();
    return () => {
      over = true;
      clearTimeout(retry);
      detach?.();
    };
  }

  /** Stops the server's game, whichever shim runs it (one this runtime lost track of is adopted first). */
  private async stop(): Promise<void> {
    try {
      const status = await this.deps.runtime.status(this.serverId);
      if (status.state !== 'running' && status.state !== 'stopping') return;
      await this.deps.runtime.stop(this.serverId, { timeoutMs: this.template.stopTimeoutSeconds * 1000 });
      // The stop is over once the game's ports lead nowhere (its exit unpublishes them too; this waits for that): a boxed
      // server's sleeping port opened while its port was still forwarded into the namespace refused players (CI, 2026-12-03).
      await this.deps.boxes.exited(this.serverId)
        .catch((err: unknown) => this.deps.logger.warn({ err, serverId: this.serverId }, 'unpublishing the game\'s ports failed'));
    } catch (e) {
      if (isRuntimeError(e, 'not_running')) return;
      this.deps.logger.warn({ err: e, serverId: this.serverId }, 'stopping the game failed; trying again');
      throw e;
    }
  }

  private async remove(): Promise<void> {
    await this.stop();
    // The game's tree goes by held directories first: a link it left (or swaps in) there is never followed.
    await removeEntryOf(serverHome(this.deps.dataDir, this.serverId), basename(this.root));
    await rm(serverHome(this.deps.dataDir, this.serverId), { recursive: true, force: true });
    await this.deps.boxes.forget(this.serverId);
  }
}

/** How long a failed attach of the ready watch waits before the next try. */
const readyWatchRetryMs = 500;

/** A proxy's route set as written into its config (routes and lobby). */
const routesKey = (network: ServerNetwork | undefined) => JSON.stringify([network?.routes ?? [], network?.lobbyServerId ?? '']);
