import { setTimeout as delay } from 'node:timers/promises';
import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import type { NodeFleet } from '../../actors/fleet.js';
import { accepts, machineState, ServerFleet, type ServerActor } from '../../actors/server-fleet.js';
import type { ServerEvent } from '../../actors/server-machine.js';
import type { Caller } from '../../core/caller.js';
import { conflict, type DomainError } from '../../core/errors.js';
import type { DesiredChanges } from '../../core/desired-changes.js';
import type { NodeDirectory } from '../../core/node-directory.js';
import type { Permission } from '../../core/permission-names.js';
import { withoutConsoleLines } from '../../domain/last-crash.js';
import type { ServerDesired, ServerObserved } from '../../domain/server-spec.js';
import type { Shared, Version } from '../../store/collection.js';
import type { ServerDoc } from '../../store/records.js';
import type { TemplateCatalog } from '../../adapters/software/template-catalog.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import { hidden, type Access } from '../identity/access.js';
import { busyError, fromActor, mirrors, nextRecord } from './actor-record.js';
import type { ServerChangeHub } from './change-hub.js';
import { ServerCrashes } from './crashes.js';
import { LentRecords, ObservedMemo, type KnownObserved, type KnownRecords } from './observed-memo.js';
import { PortRefusals } from './port-refusals.js';
import { serverDetail, serverListItem } from './views.js';

/**
 * How often a command is decided again on a record another Controller keeps writing before it is
 * refused. Five lost all their tries once in a CI run (a PATCH through one Controller, 50 in a row,
 * against the holder writing each of the Agent's reports of them, FerretDB under load).
 */
const writeAttempts = 8;
/**
 * Before each new try, a pause of up to this many milliseconds times the tries made, at random (at
 * most 560 ms in all): the holder writes each step of a restart as its Agent reports it, and on a
 * loaded store three tries at once all lost to those writes in 2 of 12 test runs.
 */
const retryPauseMs = 20;

/**
 * The record as it was read, and only so: several Controllers write server records (the API's on
 * any of them, reports on the Node's holder), and a write over another's would lose it.
 */
const unchangedSince = (doc: ServerDoc): Version => ({ id: doc._id, field: 'updatedAt', value: doc.updatedAt });

/**
 * When a write over `before` is dated: now, but always after `before` (`updatedAt` is what
 * `unchangedSince` compares, so two writes in one millisecond, or on Controllers whose clocks
 * differ, must still tell apart).
 */
function writtenAt(before: ServerDoc, now: string): string {
  return now > before.updatedAt ? now : new Date(Date.parse(before.updatedAt) + 1).toISOString();
}

/** Every write of a server that kept meeting another Controller's. */
const conflictDetail = 'The server was changed through another Controller at the same time, again and again, or another Controller\'s write of it stands unfinished (one stopped or killed mid-write holds it for up to 10 s); try again.';

/** A server's generation and whether a workflow holds it, in one number: what its Node was told. */
/** What was sent of a server: to which Nodes, which generation, and whether held. */
const sentMark = (doc: ServerDoc) => `${doc.nodeId ?? ''}|${doc.workflow?.removeOnNodeId ?? ''}|${doc.generation}|${doc.workflow?.hold ? 'held' : ''}`;

/** Hears every change of a Node's states (the Node actors' fleet). */
type NodeStateFeed = Pick<NodeFleet, 'subscribe'>;

/** A new server's record but for what its actor decides. */
type NewServer = Omit<ServerDoc, keyof ReturnType<typeof fromActor>>;

/**
 * The server aggregate: each server's record, changed only through its actor and under its
 * lock. A change is persisted before anyone is answered, then its Node is told (when what it runs
 * changed) and every listener of the change hub hears it. What reports found that the store
 * never holds (the last crash, ports other programs hold) is kept here too, beside the record it
 * shows on. Every capability that changes or reads a server for a caller goes through this; the
 * API's own use cases are `ServerService`.
 */
export class ServerAggregate {
  private readonly locks = new KeyedMutex();
  /** Each server's last crash as its Agent reported it (console lines: memory only, never in the record). */
  readonly crashes = new ServerCrashes();
  /** What reports need of each record: the store's own document where it lends one, else kept as this aggregate writes it (memory only). */
  private readonly observedMemo: KnownRecords;
  /** Each server's Nodes, generation and hold as last sent from here (`sentMark`): a change heard again is not sent twice. */
  private readonly sentGenerations = new Map<string, string>();
  /** Game ports other programs hold, as Agents found them (memory only). */
  readonly portRefusals: PortRefusals;

  constructor(
    private readonly deps: ServiceDeps & { templates?: Pick<TemplateCatalog, 'modpackOf'> },
    private readonly access: Access,
    private readonly fleet: ServerFleet,
    private readonly nodes: Pick<NodeDirectory, 'isConnected'>,
    private readonly desired: DesiredChanges,
    private readonly changes: ServerChangeHub,
    nodeStates: NodeStateFeed,
  ) {
    this.portRefusals = new PortRefusals(deps.clock);
    const { servers } = deps.repos;
    this.observedMemo = servers.cachedById ? new LentRecords((serverId) => servers.cachedById!(serverId)) : new ObservedMemo();
    // A Node heard again or lost changes its servers' convergence: tell the watchers. A Node just
    // added (created, or rehydrated before anyone can watch) changes no server's.
    nodeStates.subscribe((state, previous) => {
      if (!previous || previous.connectionState === state.connectionState) return;
      this.deps.repos.servers.find({ nodeId: state.nodeId })
        .then((docs) => docs.forEach((doc) => this.changed(doc)))
        .catch((err: unknown) => this.deps.logger.error({ err, nodeId: state.nodeId }, 'telling watchers of a Node change failed'));
    });
  }

  /** Stops every server actor (Controller shutdown); their state is in the store already. */
  stop(): void {
    this.fleet.stopAll();
  }

  private connected = (doc: Shared<ServerDoc>) => (doc.nodeId ? this.nodes.isConnected(doc.nodeId) : false);
  /** The last crash's lines are console output: only for a caller who holds `servers.console`, and never in an action's answer. */
  detail = (doc: ServerDoc, seesConsole = false) => {
    const crash = seesConsole ? this.crashes.of(doc) : withoutConsoleLines(this.crashes.of(doc));
    const view = serverDetail(doc, this.connected(doc), crash, this.portRefusals.noneLeftOf(doc._id, doc.nodeId));
    const modpack = this.deps.templates?.modpackOf(doc.desired.software);
    return modpack ? { ...view, modpack } : view;
  };
  listItem = (doc: Shared<ServerDoc>) => serverListItem(doc, this.connected(doc));

  /** The server, if the caller may see it and holds `permission` in its team. */
  async load(caller: Caller, serverId: string, permission: Permission): Promise<ServerDoc> {
    const doc = await this.deps.repos.servers.findById(serverId);
    if (!doc) throw hidden('server');
    await this.access.require(caller, doc.teamId, permission, 'server', 'servers.read');
    return doc;
  }

  /** Refused (`phase_busy`) as `apply` would refuse `event` now: checked before work that must not start for nothing. */
  requireAccepts(doc: ServerDoc, event: ServerEvent): void {
    const actor = this.actorOf(doc);
    if (!accepts(actor, event)) throw busyError(actor);
  }

  /** The refusal of a server busy in its present phase, saying which. */
  busy(doc: ServerDoc): DomainError {
    return busyError(this.actorOf(doc));
  }

  /** Runs `work` in the server's turn: commands and reports in arrival order, never one's read and write interleaved with another's. */
  locked<T>(serverId: string, work: () => Promise<T>): Promise<T> {
    return this.locks.run(serverId, work);
  }

  /**
   * Stores a new server with an actor made for it, then tells its Node. With `dryRun` the record
   * is answered as it would be, and nothing is stored, told or kept.
   */
  async add(server: NewServer, desired: ServerDesired, dryRun: boolean): Promise<ServerDoc> {
    const actor = dryRun ? ServerFleet.fresh(desired, server.createdAt) : this.fleet.create(server._id, desired, server.createdAt);
    const { observed, createdAt, updatedAt, ...placed } = server;
    const doc: ServerDoc = { ...placed, ...fromActor(actor), observed, createdAt, updatedAt };
    if (dryRun) {
      actor.stop();
      return doc;
    }
    try {
      await this.deps.repos.servers.insert(doc);
    } catch (e) {
      this.fleet.remove(doc._id);
      throw e;
    }
    this.observedMemo.saw(doc);
    if (doc.nodeId) this.tell(doc.nodeId, doc);
    this.changed(doc);
    return doc;
  }

  /**
   * Sends an event to the server's actor under its lock and persists the outcome (with a new
   * observed status, for reports, and placement fields that change with it: a new port, or a
   * migration's switch to another Node).
   */
  async apply(doc: ServerDoc, event: ServerEvent, observed?: ServerDoc['observed'], placement: Pick<Partial<ServerDoc>, 'gamePort' | 'nodeId'> = {}): Promise<ServerDoc> {
    return this.locked(doc._id, async () => {
      for (let attempt = 1; attempt <= writeAttempts; attempt++) {
        const stored = (await this.deps.repos.servers.findById(doc._id)) ?? doc;
        const current = { ...stored, ...placement };
        const actor = this.actorOf(current);
        if (!accepts(actor, event)) throw busyError(actor);
        actor.send(event);
        const next = await this.persist(current, actor, observed ?? current.observed);
        if (next) return next;
        if (attempt < writeAttempts) await delay(Math.random() * retryPauseMs * attempt);
      }
      throw conflict(conflictDetail);
    });
  }

  /** What is known of the record without reading it: as it was last read or written. In the server's turn (`locked`). */
  known(serverId: string): KnownObserved | undefined {
    return this.observedMemo.get(serverId);
  }

  /** The record as stored now, which is then what is known of it. In the server's turn (`locked`). */
  async read(serverId: string): Promise<ServerDoc | null> {
    const current = await this.deps.repos.servers.findById(serverId);
    if (current) this.observedMemo.saw(current);
    else this.observedMemo.forget(serverId);
    return current;
  }

  /** `event` with a new observed status when the actor accepts it, else nothing: a report is never refused. In the server's turn (`locked`). */
  async take(current: ServerDoc, event: ServerEvent, observed: ServerObserved): Promise<boolean> {
    const actor = this.actorOf(current);
    if (!accepts(actor, event)) return true;
    actor.send(event);
    return (await this.persist(current, actor, observed)) !== undefined;
  }

  /**
   * A new observed status alone: the machine's fields stay the record's, and so does what the Node is told. In the server's turn (`locked`).
   * False when another Controller wrote the record since `current` was read (read it and decide again).
   */
  async writeObserved(current: ServerDoc, observed: ServerObserved): Promise<boolean> {
    const { snapshot: _s, ...rest } = current as ServerDoc & { snapshot?: unknown };
    const next: ServerDoc = { ...rest, observed, updatedAt: writtenAt(current, nowIso(this.deps)) };
    let written: boolean;
    try {
      written = await this.deps.repos.servers.replaceVersion(unchangedSince(current), next);
    } catch (e) {
      this.observedMemo.forget(current._id);
      throw e;
    }
    if (!written) {
      this.observedMemo.forget(current._id);
      return false;
    }
    this.observedMemo.saw(next);
    this.changed(next);
    return true;
  }

  /**
   * Fields of the record no actor decides (a secret rotation's mark), set over the record as read,
   * in the server's turn, and tried again over a record another Controller wrote meanwhile, as
   * every write of a server is. `change` answers what to set and unset, or undefined for nothing;
   * the answer is the record written, or null when there was nothing to write.
   */
  async writeFields(serverId: string, change: (doc: ServerDoc) => { set?: Partial<ServerDoc>; unset?: (keyof ServerDoc)[] } | undefined): Promise<ServerDoc | null> {
    return this.locked(serverId, async () => {
      for (let attempt = 1; attempt <= writeAttempts; attempt++) {
        const current = await this.read(serverId);
        const fields = current ? change(current) : undefined;
        if (!current || !fields) return null;
        const { snapshot: _s, ...rest } = current as ServerDoc & { snapshot?: unknown };
        const next: ServerDoc = { ...rest, ...fields.set, updatedAt: writtenAt(current, nowIso(this.deps)) };
        for (const key of fields.unset ?? []) delete next[key];
        if (await this.deps.repos.servers.replaceVersion(unchangedSince(current), next)) {
          this.observedMemo.saw(next);
          this.changed(next);
          return next;
        }
        this.observedMemo.forget(serverId);
        if (attempt < writeAttempts) await delay(Math.random() * retryPauseMs * attempt);
      }
      throw conflict(conflictDetail);
    });
  }

  /**
   * Another Controller changed the server: its actor and what is known of its record are read
   * from the store again. On the Controller that drives the server's Node (`drives`: the Node
   * the change names, or the one known here) that is at once, and a change of what the Node runs
   * is sent to it as a change made here would be. The others read it at its next use.
   */
  heardRemote(serverId: string, namedNodeIds: readonly (string | undefined)[], drives: (nodeId: string) => boolean): Promise<void> {
    return this.locked(serverId, async () => {
      const knownNodeId = this.observedMemo.get(serverId)?.nodeId;
      this.fleet.remove(serverId);
      this.observedMemo.forget(serverId);
      // A server not (or no longer) on a Node driven here is sent nothing; what was sent is forgotten, so its move back is sent again.
      if (![...namedNodeIds, knownNodeId].some((id) => id !== undefined && drives(id))) {
        this.sentGenerations.delete(serverId);
        return;
      }
      const doc = await this.read(serverId);
      const told = new Set([doc?.nodeId, doc?.workflow?.removeOnNodeId].filter((id): id is string => id !== undefined && drives(id)));
      if (!doc || told.size === 0) {
        this.sentGenerations.delete(serverId);
        return;
      }
      this.fleet.restore(doc);
      // Judged by what was sent from here, not by the actor: a report's turn may have rebuilt it from the newer record before the change was heard.
      if (this.sentGenerations.get(serverId) === sentMark(doc)) return;
      for (const nodeId of told) this.tell(nodeId, doc);
    });
  }

  /** Sends the server's change to its Node, and remembers which generation and hold went out from here. */
  private tell(nodeId: string, doc: ServerDoc): void {
    this.sentGenerations.set(doc._id, sentMark(doc));
    this.desired.desiredStateChanged(nodeId, [doc]);
  }

  changed(doc: ServerDoc): void {
    this.changes.publish({ doc, deleted: false });
  }

  /** The server's actor; made again from the record when another Controller changed it since (before its change was heard here). */
  private actorOf(doc: ServerDoc): ServerActor {
    const actor = this.fleet.get(doc._id);
    if (actor && mirrors(actor, doc)) return actor;
    this.fleet.remove(doc._id);
    return this.fleet.restore(doc);
  }

  /**
   * Writes the actor's outcome. A server whose actor finished (DELETED) is removed for good,
   * which releases its reservation and port. If the write fails, the actor is rebuilt from the
   * store so memory never runs ahead of what was persisted. The write is made only over the
   * record as it was read (`unchangedSince`): undefined when another Controller wrote it since.
   */
  private async persist(before: ServerDoc, actor: ServerActor, observed: ServerObserved): Promise<ServerDoc | undefined> {
    if (machineState(actor).done) {
      // Only over the record as read, as any write: a change another Controller made meanwhile is decided on again.
      if (!(await this.deps.repos.servers.deleteVersion(unchangedSince(before))) && (await this.deps.repos.servers.findById(before._id))) {
        this.observedMemo.forget(before._id);
        this.fleet.remove(before._id);
        return undefined;
      }
      this.observedMemo.forget(before._id);
      this.sentGenerations.delete(before._id);
      this.fleet.remove(before._id);
      this.changes.publish({ doc: before, deleted: true });
      return before;
    }
    const next = nextRecord(before, actor, observed, writtenAt(before, nowIso(this.deps)));
    let written: boolean;
    try {
      written = await this.deps.repos.servers.replaceVersion(unchangedSince(before), next);
    } catch (e) {
      this.observedMemo.forget(before._id);
      this.fleet.remove(before._id);
      this.fleet.restore(before);
      throw e;
    }
    if (!written) {
      // Another Controller wrote it since it was read: nothing here, and the actor is made again from the record at its next use.
      this.observedMemo.forget(before._id);
      this.fleet.remove(before._id);
      if (await this.deps.repos.servers.findById(before._id)) return undefined;
    }
    this.observedMemo.saw(next);
    // A hold begun or lifted changes what the Node is told as much as a new generation does.
    if ((next.generation !== before.generation || Boolean(next.workflow?.hold) !== Boolean(before.workflow?.hold)) && next.nodeId) this.tell(next.nodeId, next);
    this.changed(next);
    return next;
  }
}
