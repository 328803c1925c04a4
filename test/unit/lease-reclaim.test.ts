import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeFleet, initialStatus } from '../../src/controller/actors/fleet.js';
import { defaultNodeTimings } from '../../src/controller/actors/node-machine.js';
import type { LeaseTiming } from '../../src/controller/domain/lease-timing.js';
import { AgentSessions } from '../../src/controller/link/session-registry.js';
import type { LeaseChange } from '../../src/controller/services/leases/membership.js';
import { SharedStoreMembership } from '../../src/controller/services/leases/shared-store-membership.js';
import { EmbeddedAdapter } from '../../src/controller/store/embedded/embedded-adapter.js';
import type { LeaseStore } from '../../src/controller/store/lease-store.js';
import type { NodeDoc } from '../../src/controller/store/records.js';
import { openRepositories, type Repositories } from '../../src/controller/store/repositories.js';
import { systemClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { waitFor } from '../support/wait-for.js';

/** Rounds every 300 ms, to see several in a test. */
const fast: LeaseTiming = { ttlMs: 1_500, renewEveryMs: 300, marginMs: 300 };
/** No round after the first during a test: what a test does to the leases is not renewed away. */
const slow: LeaseTiming = { ttlMs: 60_000, renewEveryMs: 20_000, marginMs: 10_000 };
const node = (id: string): NodeDoc => ({
  _id: id, name: id, nameKey: id, address: '', adminState: 'ENABLED', enrolledAt: '2026-01-01T00:00:00.000Z',
  status: initialStatus(), conditions: [], createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
});

/**
 * A Node whose lease this Controller holds is never dropped without a word: a round reading the
 * leases from before an Agent's hello was admitted (its Node free then) does not claim it again,
 * and a held lease the store does not give again is lost (its stream ended), so its Agent dials
 * the new holder instead of staying connected to a Controller that no longer drives it. A hello
 * waits for the Node's actor a round is building, so its session is never left on the old one.
 */
describe('a Node\'s lease and actor here, against a lease round that read the store earlier', function () {
  this.timeout(15_000);
  let dir: string;
  let repos: Repositories;
  let membership: SharedStoreMembership;
  let changes: LeaseChange[];
  let disconnected: string[];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-lease-reclaim-'));
    repos = await openRepositories(await EmbeddedAdapter.open(dir, systemClock));
  });

  let fleet: NodeFleet;
  let agents: AgentSessions;

  async function start(timing: LeaseTiming): Promise<void> {
    fleet = new NodeFleet({ clock: systemClock, logger: silentLogger, timings: defaultNodeTimings });
    agents = new AgentSessions(silentLogger);
    disconnected = [];
    agents.disconnect = (nodeId: string) => void disconnected.push(nodeId);
    membership = new SharedStoreMembership('controller-c', { repos, fleet, agents, logger: silentLogger, clock: systemClock, timing });
    changes = [];
    membership.onChange((change) => changes.push(change));
    await membership.start({ address: 'c.example:8443', httpAddress: 'c.example:8080' });
  }
  afterEach(async () => {
    await (membership as SharedStoreMembership | undefined)?.stop();
    await repos.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The store's leases as a round read them before `nodeId` was taken, and its claims of that Node refused. */
  function staleViewOf(nodeId: string): { claims: number } {
    const leases = (membership as unknown as { leases: LeaseStore }).leases;
    const withPrefix = leases.withPrefix.bind(leases);
    const seen = { claims: 0 };
    leases.withPrefix = async (prefix) => (await withPrefix(prefix)).filter((d) => d._id !== `node:${nodeId}`);
    const acquire = leases.acquire.bind(leases);
    leases.acquire = (resource, ...rest) => {
      if (resource !== `node:${nodeId}`) return acquire(resource, ...rest);
      seen.claims++;
      return Promise.resolve(undefined);
    };
    return seen;
  }

  it('a Node admitted here is not claimed again by a round that saw it free: it stays driven here', async () => {
    await start(fast);
    // Another Controller drives n0, so this one's share (both Nodes) leaves room to claim one more.
    await repos.leases.insert({ _id: 'node:n0', holder: 'controller-other', holderAddress: 'other.example:8443', term: 1, expiresAt: Date.now() + 60_000 });
    await repos.nodes.insert(node('n0'));
    await repos.nodes.insert(node('n1'));
    await waitFor(() => membership.termFor('n1') !== undefined, { timeoutMs: 5_000, what: 'n1 claimed' });
    const seen = staleViewOf('n1');
    const renewedPast = Date.now() + 3 * fast.ttlMs;
    await waitFor(() => Date.now() > renewedPast, { timeoutMs: 10_000, intervalMs: 100, what: 'three lease times of rounds' });
    expect(seen.claims, 'claims of a Node held here').to.equal(0);
    expect(membership.termFor('n1')).to.be.a('number');
    expect(changes).to.deep.equal(['gained']);
  });

  it('a held lease the store does not give again at an Agent\'s hello is lost, its stream ended', async () => {
    await repos.nodes.insert(node('n2'));
    await start(slow);
    expect(membership.termFor('n2'), 'claimed in the first round').to.be.a('number');
    // Within its margin by this Controller's clock (a slow renewal): the hello claims it again, and another Controller has it.
    (membership as unknown as { keeper: { held: Map<string, { expiresAt: number }> } }).keeper.held.get('node:n2')!.expiresAt = Date.now();
    staleViewOf('n2');
    expect((await membership.admit('n2')).kind).to.not.equal('mine');
    expect(changes).to.deep.equal(['gained', 'lost']);
    expect(disconnected).to.deep.equal(['n2']);
  });

  it('a hello while a lease round reloads the Node is admitted once the reload is done, so its session lands on the actor that stays', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const findById = repos.nodes.findById.bind(repos.nodes);
    repos.nodes.findById = async (id) => {
      if (id === 'n3') await gate;
      return findById(id);
    };
    await start(fast);
    const order: string[] = [];
    const add = fleet.add.bind(fleet);
    fleet.add = (doc) => {
      order.push(`actor of ${doc._id}`);
      return add(doc);
    };
    await repos.nodes.insert(node('n3'));
    // The round claimed it and is reading its record for the new actor.
    await waitFor(() => membership.termFor('n3') !== undefined, { timeoutMs: 5_000, what: 'n3 claimed' });
    const admitted = membership.admit('n3').then((a) => order.push(`admitted ${a.kind}`));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(order, 'admitted before the reload ended').to.deep.equal([]);
    release();
    await admitted;
    expect(order).to.deep.equal(['actor of n3', 'admitted mine']);
  });

  it('a Node whose record cannot be read after an Agent\'s hello claimed it is given up, not held without an actor', async () => {
    let failing = true;
    const findById = repos.nodes.findById.bind(repos.nodes);
    repos.nodes.findById = (id) => (id === 'n4' && failing ? Promise.reject(new Error('store timed out')) : findById(id));
    // No round after the first: the hello claims it.
    await start(slow);
    await repos.nodes.insert(node('n4'));
    expect((await membership.admit('n4')).kind).to.equal('unavailable');
    expect(membership.termFor('n4'), 'held with no actor, every later hello would be refused as not loaded').to.equal(undefined);
    failing = false;
    expect(await membership.admit('n4')).to.deep.include({ kind: 'mine' });
    expect(fleet.has('n4')).to.equal(true);
  });

  it('a hello that claims a Node while a round\'s claim of it is in flight keeps it: the round\'s refused claim does not drop it in silence', async () => {
    await repos.leases.insert({ _id: 'node:n7', holder: 'controller-other', holderAddress: 'other.example:8443', term: 1, expiresAt: Date.now() + 60_000 });
    await repos.nodes.insert(node('n6'));
    await repos.nodes.insert(node('n7'));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let roundClaims = 0;
    const started = start(slow);
    const leases = (membership as unknown as { leases: LeaseStore }).leases;
    const acquire = leases.acquire.bind(leases);
    // The round's claim of n6 is answered late, refused (another claim changed the lease meanwhile); a hello's goes through.
    leases.acquire = async (resource, ...rest) => {
      if (resource !== 'node:n6' || roundClaims++ > 0) return acquire(resource, ...rest);
      await gate;
      return undefined;
    };
    await waitFor(() => roundClaims === 1 || undefined, { timeoutMs: 5_000, what: 'the round claiming n6' });
    const admitted = membership.admit('n6');
    // Nothing to poll for: the hello's claim goes through in this time where nothing holds it back behind the round's.
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    expect(await admitted).to.deep.include({ kind: 'mine' });
    await started;
    // Dropped in silence, its Agent stayed connected here while the lease ran out and passed to another Controller (the 1,000-fault bench, fault 193).
    expect(membership.termFor('n6'), 'the lease the hello was admitted under').to.be.a('number');
    expect(changes).to.deep.equal(['gained']);
  });

  it('an Agent connected here whose Node\'s lease is not held here has its stream ended at the next round', async () => {
    await start(fast);
    await repos.nodes.insert(node('n8'));
    await waitFor(() => membership.termFor('n8') !== undefined, { timeoutMs: 5_000, what: 'n8 claimed' });
    // A session the lease code does not know of, as a silent drop of its lease left one before.
    agents.connectedNodeIds = () => ['n8', 'n9'];
    await waitFor(() => disconnected.includes('n9') || undefined, { timeoutMs: 5_000, what: 'the stream of n9 ended' });
    expect(disconnected, 'n8 is held here').to.not.include('n8');
  });

  it('a slow store\'s rounds keep their leases: the next renewal is due an interval after the last began, not after it ended', async function () {
    this.timeout(40_000);
    // Renewed every 2 s, driven until 4.8 s after a renewal: a round of 1 s renewal and 1.7 s claims, then 2 s of
    // waiting, left 0.1 s for the next renewal, and every lease was lost for it.
    const timing: LeaseTiming = { ttlMs: 6_000, renewEveryMs: 2_000, marginMs: 1_200 };
    await repos.nodes.insert(node('n10'));
    await start(timing);
    expect(membership.termFor('n10'), 'claimed in the first round').to.be.a('number');
    const leases = (membership as unknown as { leases: LeaseStore }).leases;
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const renewMany = leases.renewMany.bind(leases);
    leases.renewMany = async (...args) => {
      await pause(1_000);
      return renewMany(...args);
    };
    const withPrefix = leases.withPrefix.bind(leases);
    leases.withPrefix = async (prefix) => {
      if (prefix === 'controller:') await pause(1_700);
      return withPrefix(prefix);
    };
    const until = Date.now() + 16_000;
    await waitFor(() => Date.now() > until || changes.length > 1 || undefined, { timeoutMs: 30_000, intervalMs: 100, what: 'four slow rounds' });
    expect(changes).to.deep.equal(['gained']);
    expect(membership.termFor('n10')).to.be.a('number');
  });

  it('the first lease round at start is bounded like the later ones: a lease gained at a hello meanwhile is lost in time, its stream ended', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const find = repos.nodes.find.bind(repos.nodes);
    // The first round's claims read the enrolled Nodes and hang there (a busy store).
    repos.nodes.find = async (...args) => {
      await gate;
      return find(...args);
    };
    await repos.nodes.insert(node('n5'));
    const started = start(fast);
    expect(await membership.admit('n5')).to.deep.include({ kind: 'mine' });
    // Unbounded, the round ran on and nothing was renewed or lost: the Agent stayed connected under a term past its margin.
    await waitFor(() => disconnected.includes('n5'), { timeoutMs: 3 * fast.ttlMs, what: 'the stream of n5 ended when the first round overran' });
    expect(changes).to.deep.equal(['gained', 'lost']);
    release();
    await started;
  });
});
