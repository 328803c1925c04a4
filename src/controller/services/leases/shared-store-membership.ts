import { status as GrpcStatus } from '@grpc/grpc-js';
import type { Clock } from '../../../shared/clock.js';
import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import type { Logger } from '../../../shared/logger.js';
import type { NodeFleet } from '../../actors/fleet.js';
import type { Admission } from '../../core/node-ownership.js';
import { fleetJobNames, type FleetJobName, jobOfResource, jobResource, jobsToClaim } from '../../domain/fleet-jobs.js';
import { pickToHandBack, shouldHandBack } from '../../domain/lease-handover.js';
import { controllerResource, fairShare, nodeOfResource, nodeResource, nodesToClaim } from '../../domain/lease-share.js';
import type { LeaseTiming } from '../../domain/lease-timing.js';
import type { AgentSessions } from '../../link/session-registry.js';
import type { ClusterController } from '../../schemas/cluster.js';
import type { AdminState } from '../../schemas/nodes.js';
import { LeaseStore } from '../../store/lease-store.js';
import type { LeaseDoc } from '../../store/records.js';
import type { Repositories } from '../../store/repositories.js';
import { clusterControllers } from './cluster-listing.js';
import type { FleetJobs } from './fleet-jobs.js';
import { busyNodes, HandedBack, shareView } from './lease-handover.js';
import { LeaseKeeper } from './lease-keeper.js';
import type { ClusterMembership, ControllerSelf, LeaseChange } from './membership.js';
import { StoreClock } from './store-clock.js';
import { endStrayStreams } from './stray-streams.js';

export interface SharedStoreDeps {
  repos: Repositories;
  fleet: NodeFleet;
  agents: AgentSessions;
  logger: Logger;
  clock: Clock;
  timing: LeaseTiming;
  /** The fleet-wide jobs, run here while their lease (`fleet:<job>`) is held. */
  jobs?: FleetJobs;
  /** How long after it ran out a gone Controller's lease is deleted; ten lease times unless a test says otherwise. */
  forgetGoneAfterMs?: number;
}

/**
 * A Controller among several on one MongoDB database. It registers itself (`controller:<id>`),
 * claims its share of the enrolled Nodes (`node:<id>`) and renews everything it holds in one bulk
 * write per tick. It drives a Node (its actor, its servers' desired states, operations) only
 * while it holds the Node's lease: a lease lost (renewed by nobody, taken by another, or a renewal
 * that failed or hung) ends the Node's stream at once, naming the new holder when there is one.
 * Expiry is judged by the store's clock (StoreClock), never by comparing Controllers' clocks.
 */
export class SharedStoreMembership implements ClusterMembership {
  private readonly leases: LeaseStore;
  private readonly clock: StoreClock;
  private keeper?: LeaseKeeper;
  private self?: ControllerSelf;
  private readonly startedAt: string;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private readonly listeners = new Set<(change: LeaseChange, nodeId: string) => void>();
  private readonly started: Promise<void>;
  private markStarted!: () => void;
  private readonly handedBack: HandedBack;
  /** Each Node's reloads (`reload`), one after the other: a hello is admitted once those under way are done. */
  private readonly rebuilds = new KeyedMutex();
  /** Each Node's claims with what follows them (a hello's, a round's), one after the other. */
  private readonly claiming = new KeyedMutex();
  /** A job being handed back (stopping, then released): one at a time. */
  private handingBackJob = false;

  constructor(readonly controllerId: string, private readonly deps: SharedStoreDeps) {
    this.leases = new LeaseStore(deps.repos.leases, deps.timing.ttlMs / 2);
    this.clock = new StoreClock(() => deps.repos.serverTime());
    this.startedAt = deps.clock.now().toISOString();
    this.started = new Promise((resolve) => (this.markStarted = resolve));
    this.handedBack = new HandedBack(deps.timing.ttlMs);
  }

  get heldCount(): number {
    return this.keeper?.holds().filter((r) => nodeOfResource(r) !== undefined).length ?? 0;
  }

  onChange(listener: (change: LeaseChange, nodeId: string) => void): void {
    this.listeners.add(listener);
  }

  async start(self: ControllerSelf): Promise<void> {
    this.self = self;
    this.keeper = new LeaseKeeper(this.leases, this.controllerId, self.address, this.clock, this.deps.timing);
    await this.clock.sync();
    await this.register();
    this.markStarted();
    this.deps.logger.info({ event: 'cluster_joined', controllerId: this.controllerId, address: self.address }, 'joined the Controllers on this store');
    // Bounded like every later round: a lease gained at a hello meanwhile must not be driven past its margin while this one runs on.
    await this.roundThenNext();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    // The jobs stop before their leases are handed back: another Controller never runs one while this one still does.
    await this.deps.jobs?.close();
    await this.keeper?.releaseAll().catch((err: unknown) => this.deps.logger.warn({ err }, 'handing the leases back failed; they expire instead'));
  }

  termFor(nodeId: string): number | undefined {
    return this.keeper?.termFor(nodeResource(nodeId));
  }

  async admit(nodeId: string): Promise<Admission> {
    await this.started;
    // A session must land on the Node's actor as it will stay, not on one a reload under way replaces.
    await this.rebuilds.run(nodeId, () => Promise.resolve());
    const keeper = this.keeper!;
    const resource = nodeResource(nodeId);
    const mine = await this.claiming.run(resource, async () => {
      const term = keeper.termFor(resource);
      if (term !== undefined) return term;
      const held = keeper.holds().includes(resource);
      if (this.handedBack.heldOff(resource, this.clock.now().getTime()) || !(await this.claim(resource))) return undefined;
      if (!held) await this.gained(nodeId);
      return keeper.termFor(resource);
    });
    if (mine !== undefined) return { kind: 'mine', term: mine };
    const holder = await this.leases.holderOf(resource, this.clock.now().getTime());
    return holder && holder.holder !== this.controllerId ? { kind: 'elsewhere', address: holder.holderAddress } : { kind: 'unavailable' };
  }

  async holders(nodeIds: readonly string[]): Promise<Map<string, string>> {
    if (nodeIds.length === 0) return new Map();
    const now = this.clock.now().getTime();
    const docs = await this.deps.repos.leases.find({ _id: { $in: nodeIds.map(nodeResource) } });
    return new Map(docs.filter((d) => d.expiresAt > now).map((d) => [nodeOfResource(d._id)!, d.holder]));
  }

  async controllers(): Promise<ClusterController[]> {
    const [controllers, nodes, jobs] = await Promise.all([this.leases.withPrefix('controller:'), this.leases.withPrefix('node:'), this.leases.withPrefix('fleet:')]);
    return clusterControllers({ controllers, nodes, jobs }, this.clock.now().getTime(), this.deps.timing.ttlMs);
  }

  private async register(): Promise<void> {
    await this.keeper!.claim(controllerResource(this.controllerId), { httpAddress: this.self!.httpAddress, startedAt: this.startedAt });
  }

  /** A round, then the next an interval after it began (a quarter after it ended, at least): counted from its end, a slow round put the next renewal past the margin. */
  private async roundThenNext(): Promise<void> {
    const began = performance.now();
    await this.round();
    if (this.stopped) return;
    const every = this.deps.timing.renewEveryMs;
    this.timer = setTimeout(() => void this.roundThenNext(), Math.max(every / 4, every - (performance.now() - began)));
  }

  /**
   * One round in two steps: the renewal (the store's clock, then every held lease), then the claims
   * (Nodes gone, this Controller's share, fleet-wide jobs, handing back). A store that does not
   * answer a step in time costs every lease at once (their Nodes stop being driven here).
   * - The renewal has until this Controller must stop acting on its leases anyway (the first expiry
   *   less the margin: 1.4 s at 3 s leases, 7 s at 15 s, after a round in time), not only the renewal
   *   interval: on a loaded store a renewal answered a little late kept nothing, and every Node
   *   changed hands for it. Never longer: past that margin a stream still open here would carry
   *   a term another Controller may hold already.
   * - The claims have the renewal interval of their own: a lease just renewed is good for a whole
   *   time to live, so slow claims (a Node reloaded on a busy store) do not cost the leases the
   *   renewal kept; the next renewal still comes before their margin (isSafeTiming).
   * The next round is scheduled only once this one settled (`roundThenNext`), so rounds never overlap.
   */
  private async round(): Promise<void> {
    const renewFor = this.keeper!.drivableForMs() ?? this.deps.timing.renewEveryMs;
    try {
      if (await this.inTime(this.renewal(), renewFor, 'the store did not answer the renewal in time')) {
        await this.inTime(this.claims(), this.deps.timing.renewEveryMs, 'the store did not answer the claims in time');
      }
    } catch (err) {
      this.loseAll('the renewal failed', err);
    }
  }

  /** Whether `step` settled within `ms`; when it did not, every lease is lost and the step is waited out. */
  private async inTime(step: Promise<void>, ms: number, why: string): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
    try {
      const started = performance.now();
      if ((await Promise.race([step.then(() => 'done' as const), late])) === 'done') return true;
      this.loseAll(why);
      await step.catch(() => undefined);
      // How late the store was tells an operator whether the lease time suits the store.
      this.deps.logger.warn({ event: 'lease_round_late', step: why, allowedMs: ms, tookMs: Math.round(performance.now() - started) }, 'the late step of the lease round has settled');
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  private async renewal(): Promise<void> {
    if (this.stopped) return;
    const keeper = this.keeper!;
    await this.clock.sync();
    const lost = [...(await keeper.renewAll()), ...keeper.dropUnsafe()];
    for (const resource of lost) this.lost(resource);
    endStrayStreams(this.deps.agents, keeper.holds(), this.deps.logger);
    if (keeper.termFor(controllerResource(this.controllerId)) === undefined) await this.register();
  }

  private async claims(): Promise<void> {
    if (this.stopped) return;
    await this.dropGone();
    await this.claimShare();
    await this.claimJobs();
  }

  /**
   * Gives up the Nodes revoked or deleted through another Controller: their Agents' streams end
   * here within a tick, and a revoked Agent's credential is refused when it dials again. A Node
   * enabled or disabled through another Controller is enabled or disabled here, within a tick.
   */
  private async dropGone(): Promise<void> {
    const held = this.keeper!.holds().map(nodeOfResource).filter((id) => id !== undefined);
    if (held.length === 0) return;
    const current = new Map((await this.deps.repos.nodes.find({ _id: { $in: held }, adminState: { $ne: 'REVOKED' } })).map((n) => [n._id, n]));
    for (const nodeId of held) {
      const doc = current.get(nodeId);
      if (doc) this.followAdmin(nodeId, doc.adminState);
      else {
        await this.keeper!.release(nodeResource(nodeId));
        this.lost(nodeResource(nodeId));
      }
    }
  }

  /** The record's admin state, stored by whichever Controller the administrator asked, applied to the Node's actor here. */
  private followAdmin(nodeId: string, adminState: AdminState): void {
    if (adminState === 'REVOKED' || this.deps.fleet.state(nodeId)?.adminState === adminState) return;
    const event = adminState === 'ENABLED' ? ({ type: 'ENABLE' } as const) : ({ type: 'DISABLE' } as const);
    if (this.deps.fleet.checkAdmin(nodeId, event) === 'allowed') this.deps.fleet.applyAdmin(nodeId, event);
  }

  /** Claims free Nodes up to this Controller's share of the enrolled, unrevoked ones. */
  private async claimShare(): Promise<void> {
    const keeper = this.keeper!;
    const now = this.clock.now().getTime();
    const [nodes, controllers, nodeLeases] = await Promise.all([
      this.deps.repos.nodes.find({ enrolledAt: { $exists: true }, adminState: { $ne: 'REVOKED' } }),
      this.leases.withPrefix('controller:'),
      this.leases.withPrefix('node:'),
    ]);
    // What is held here is the renewal's: the leases read before an Agent's hello was admitted here may show its Node free.
    const taken = new Set([...nodeLeases.filter((d) => d.expiresAt > now).map((d) => d._id), ...keeper.holds()]);
    const free = nodes.map((n) => n._id).filter((id) => !taken.has(nodeResource(id)));
    const share = fairShare(nodes.length, controllers.filter((d) => d.expiresAt > now).length);
    for (const nodeId of nodesToClaim(free, this.heldCount, share, this.controllerId)) {
      if (this.stopped) return;
      await this.claiming.run(nodeResource(nodeId), async () => {
        // Taken at a hello since the leases were read: the renewal's now (claimed again, its actor was rebuilt under the session).
        if (this.keeper!.holds().includes(nodeResource(nodeId))) return;
        if (await this.claim(nodeResource(nodeId))) await this.gained(nodeId);
      });
    }
    const view = shareView(nodes.map((n) => nodeResource(n._id)), nodeLeases, controllers, now, { id: this.controllerId, held: this.heldCount });
    if (shouldHandBack(this.controllerId, view)) await this.handBackNode();
    await this.forgetGoneControllers(controllers, now);
  }

  /**
   * Deletes the leases of Controllers gone for a while: every start takes a new id, so without this
   * the collection grows by one lease a start, and FerretDB reads all of it for every lookup by prefix.
   */
  private async forgetGoneControllers(controllers: LeaseDoc[], now: number): Promise<void> {
    const goneBefore = now - (this.deps.forgetGoneAfterMs ?? 10 * this.deps.timing.ttlMs);
    for (const lease of controllers.filter((d) => d.expiresAt < goneBefore)) {
      if (this.stopped) return;
      if (await this.leases.remove(lease)) this.deps.logger.info({ event: 'controller_forgotten', controllerId: lease.holder }, 'deleted the lease of a Controller gone for a while');
    }
  }

  /**
   * Hands one Node over to a Controller below its share: driven here no more (its stream closed,
   * so its Agent dials again and is sent to the new holder), then released in the store. Its games
   * run on under their Agent meanwhile.
   */
  private async handBackNode(): Promise<void> {
    const held = this.keeper!.holds().filter((r) => nodeOfResource(r) !== undefined);
    const resource = pickToHandBack(held, await busyNodes(this.deps.repos, held.map((r) => nodeOfResource(r)!)));
    if (resource === undefined || this.stopped) return;
    this.deps.logger.info({ event: 'lease_handed_back', nodeId: nodeOfResource(resource) }, 'handing the Node over to a Controller below its share');
    this.handedBack.note(resource, this.clock.now().getTime());
    this.lost(resource);
    await this.keeper!.release(resource);
  }

  /** Claims free fleet-wide jobs up to this Controller's share of them; a job gained starts here at once. */
  private async claimJobs(): Promise<void> {
    const jobs = this.deps.jobs;
    if (!jobs) return;
    const keeper = this.keeper!;
    const now = this.clock.now().getTime();
    const [controllers, jobLeases] = await Promise.all([this.leases.withPrefix('controller:'), this.leases.withPrefix('fleet:')]);
    const taken = new Set([...jobLeases.filter((d) => d.expiresAt > now).map((d) => d._id), ...keeper.holds()]);
    const free = fleetJobNames.filter((job) => !taken.has(jobResource(job)));
    const held = keeper.holds().filter((r) => jobOfResource(r) !== undefined).length;
    for (const job of jobsToClaim(free, held, controllers.filter((d) => d.expiresAt > now).length, this.controllerId)) {
      if (this.stopped) return;
      if (await this.claim(jobResource(job))) void this.startJob(jobs, job);
    }
    const mine = keeper.holds().filter((r) => jobOfResource(r) !== undefined);
    const view = shareView(fleetJobNames.map(jobResource), jobLeases, controllers, now, { id: this.controllerId, held: mine.length });
    const job = this.handingBackJob || !shouldHandBack(this.controllerId, view) ? undefined : pickToHandBack(mine, new Set());
    if (job !== undefined) void this.handBackJob(jobs, jobOfResource(job)!);
  }

  /** Hands one job over to a Controller below its share, beside the round: it stops here first, then its lease goes back. */
  private async handBackJob(jobs: FleetJobs, job: FleetJobName): Promise<void> {
    this.handingBackJob = true;
    try {
      this.deps.logger.info({ event: 'fleet_job_handed_back', job }, `handing the fleet-wide job ${job} over to a Controller below its share`);
      await jobs.lost(job);
      await this.keeper!.release(jobResource(job));
    } catch (err) {
      this.deps.logger.warn({ err, job }, 'handing a job back failed; its lease expires instead');
    } finally {
      this.handingBackJob = false;
    }
  }

  /** A job that failed to start hands its lease back, so that it is claimed (here or elsewhere) and tried again. */
  private async startJob(jobs: FleetJobs, job: FleetJobName): Promise<void> {
    if (await jobs.gained(job)) return;
    if (this.keeper!.termFor(jobResource(job)) === undefined) return;
    await this.keeper!.release(jobResource(job)).catch((err: unknown) => this.deps.logger.warn({ err, job }, 'handing back the lease of a job that failed to start failed; it expires instead'));
  }

  /**
   * Claims the resource. One held here that the store does not give again (another Controller took it) is lost like
   * any other, its stream ended; dropped in silence, its Agent stayed here (the 1,000-fault bench, fault 528).
   */
  private async claim(resource: string): Promise<boolean> {
    const held = this.keeper!.holds().includes(resource);
    if (await this.keeper!.claim(resource)) return true;
    if (held) this.lost(resource);
    return false;
  }

  private loseAll(why: string, err?: unknown): void {
    const lost = this.keeper!.forgetAll();
    // Through a long outage every round fails with nothing left to lose: said once as a warning, then only at debug.
    const level = lost.length > 0 ? 'warn' : 'debug';
    this.deps.logger[level]({ event: 'leases_lost', err, count: lost.length }, `${why}: every lease is lost, their Nodes are not driven here until claimed again`);
    for (const resource of lost) this.lost(resource);
  }

  /** The Node is this Controller's now: its actor starts again from the store's record (another may have driven it). */
  private async gained(nodeId: string): Promise<void> {
    const resource = nodeResource(nodeId);
    // The term claimed, read before the reload: on a slow store the lease may be within its margin by the time the reload ends.
    const term = this.termFor(nodeId);
    if (term === undefined) {
      // Claimed, but answered too late to act on (a slow store), or lost to a failed round meanwhile: not gained; it runs out in the store.
      if (this.keeper!.forget(resource)) this.lost(resource);
      this.deps.logger.warn({ event: 'lease_claimed_late', nodeId }, 'the store answered the claim of the Node too late to drive it under; it is claimed again later');
      return;
    }
    try {
      await this.reload(nodeId);
    } catch (err) {
      // Held with no actor, every hello would be answered "not loaded" for as long as the lease is renewed: let it go.
      this.deps.logger.warn({ event: 'lease_given_up', err, nodeId }, 'the Node\'s record could not be read after its lease was gained; the lease is given up and claimed again later');
      if (this.keeper!.forget(resource)) this.lost(resource);
      return;
    }
    // Lost during the reload (a failed round): that was said already.
    if (!this.keeper!.holds().includes(resource)) return;
    this.deps.logger.info({ event: 'lease_gained', nodeId, term }, 'driving the Node');
    this.tell('gained', nodeId);
  }

  /** The Node is not this Controller's any more: its stream ends at once and its actor stops acting. */
  private lost(resource: string): void {
    const job = jobOfResource(resource);
    if (job) void this.deps.jobs?.lost(job);
    const nodeId = nodeOfResource(resource);
    if (nodeId === undefined) return;
    this.deps.logger.warn({ event: 'lease_lost', nodeId }, 'lost the Node\'s lease; no longer driving it');
    this.tell('lost', nodeId);
    this.deps.agents.disconnect(nodeId, GrpcStatus.UNAVAILABLE, 'another Controller drives this Node now');
    this.deps.fleet.remove(nodeId);
    this.reload(nodeId).catch((err: unknown) => this.deps.logger.warn({ err, nodeId }, 'reloading a Node after its lease was lost failed'));
  }

  /**
   * Reads the Node's record again into a new actor. A hello waits for it (`admit`): a session admitted
   * meanwhile landed on the actor it replaced, and the Node stayed UNREACHABLE with its Agent connected.
   */
  private reload(nodeId: string): Promise<void> {
    return this.rebuilds.run(nodeId, async () => {
      const doc = await this.deps.repos.nodes.findById(nodeId);
      this.deps.fleet.remove(nodeId);
      if (doc) this.deps.fleet.add(doc);
    });
  }

  private tell(change: LeaseChange, nodeId: string): void {
    for (const listener of this.listeners) listener(change, nodeId);
  }
}
