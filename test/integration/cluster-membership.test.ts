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
import { MongoAdapter } from '../../src/controller/store/mongo/mongo-adapter.js';
import type { NodeDoc } from '../../src/controller/store/records.js';
import { openRepositories, type Repositories, type StoreAdapter } from '../../src/controller/store/repositories.js';
import { systemClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { freshTestDatabase, testMongo } from '../support/test-mongodb.js';
import { waitFor } from '../support/wait-for.js';

/** Short leases, so a test sees expiry and claims in seconds; as safe as the defaults (two renewals before the margin). */
const timing: LeaseTiming = { ttlMs: 1_500, renewEveryMs: 300, marginMs: 300 };

const node = (id: string): NodeDoc => ({
  _id: id, name: id, nameKey: id, address: '', adminState: 'ENABLED', enrolledAt: '2026-01-01T00:00:00.000Z',
  status: initialStatus(), conditions: [], createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
});

interface StoreCase {
  name: string;
  open(): Promise<StoreAdapter>;
  cleanup(): Promise<void>;
}

const cases: StoreCase[] = [];
{
  let dir = '';
  cases.push({
    name: 'embedded files',
    async open() {
      dir = await mkdtemp(join(tmpdir(), 'cairn-membership-'));
      return EmbeddedAdapter.open(dir, systemClock);
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  });
}
if (testMongo) {
  const db = freshTestDatabase(testMongo, 'cairn_membership');
  cases.push({ name: testMongo.kind, open: async () => MongoAdapter.open(await db.uri(), systemClock), cleanup: () => db.drop() });
}

for (const c of cases) {
  describe(`Controllers sharing Nodes by lease (${c.name})`, function () {
    this.timeout(30_000);
    let repos: Repositories;
    const members: SharedStoreMembership[] = [];
    /** Makes a member's store unreachable from it: every call then fails. */
    const cutOff = new Map<SharedStoreMembership, () => void>();

    function member(id: string) {
      let down = false;
      const store: Repositories = { ...repos, serverTime: () => (down ? Promise.reject(new Error('store unreachable')) : repos.serverTime()) };
      const fleet = new NodeFleet({ clock: systemClock, logger: silentLogger, timings: defaultNodeTimings });
      const membership = new SharedStoreMembership(id, { repos: store, fleet, agents: new AgentSessions(silentLogger), logger: silentLogger, clock: systemClock, timing, forgetGoneAfterMs: 2_000 });
      const changes: LeaseChange[] = [];
      membership.onChange((change) => changes.push(change));
      members.push(membership);
      cutOff.set(membership, () => (down = true));
      return { membership, changes };
    }

    before(async () => {
      repos = await openRepositories(await c.open());
    });
    after(async () => {
      await Promise.all(members.map((m) => m.stop()));
      await repos.close();
      await c.cleanup();
    });

    it('two Controllers take two Nodes each, see each other, and send an Agent of the other\'s Node there', async () => {
      const a = member('controller-a');
      const b = member('controller-b');
      expect(a.changes).to.deep.equal([]);
      await a.membership.start({ address: 'a.example:8443', httpAddress: 'a.example:8080' });
      await b.membership.start({ address: 'b.example:8443', httpAddress: 'b.example:8080' });
      // Nodes enrolled once both run (a Controller keeps what it took while alone: no handover yet).
      for (const id of ['n1', 'n2', 'n3', 'n4']) await repos.nodes.insert(node(id));
      // Enrolled but revoked: never claimed.
      await repos.nodes.insert({ ...node('n5'), adminState: 'REVOKED' });
      await waitFor(() => a.membership.heldCount === 2 && b.membership.heldCount === 2, { timeoutMs: 10_000, what: 'two Nodes each' });
      const holders = await a.membership.holders(['n1', 'n2', 'n3', 'n4', 'n5']);
      expect([...holders.keys()].sort()).to.deep.equal(['n1', 'n2', 'n3', 'n4']);
      expect([...holders.values()].filter((h) => h === 'controller-a')).to.have.length(2);
      const cluster = await b.membership.controllers();
      expect(cluster.map((e) => ({ id: e.id, address: e.address, httpAddress: e.httpAddress, nodes: e.nodes }))).to.deep.equal([
        { id: 'controller-a', address: 'a.example:8443', httpAddress: 'a.example:8080', nodes: 2 },
        { id: 'controller-b', address: 'b.example:8443', httpAddress: 'b.example:8080', nodes: 2 },
      ]);
      const ofA = [...holders].find(([, h]) => h === 'controller-a')![0];
      expect(await b.membership.admit(ofA)).to.deep.equal({ kind: 'elsewhere', address: 'a.example:8443' });
      const mine = await a.membership.admit(ofA);
      expect(mine.kind).to.equal('mine');
      expect(a.membership.termFor(ofA)).to.be.a('number');
      expect(b.membership.termFor(ofA)).to.equal(undefined);
      // Two held now; a busy machine may have cost it a lease and given it back, which counts both ways.
      expect(a.changes.filter((ch) => ch === 'gained').length - a.changes.filter((ch) => ch === 'lost').length).to.equal(2);
    });

    it('a Controller whose store stops answering loses every lease at once, and the other takes its Nodes with a newer term', async () => {
      const [a, b] = members;
      const before = new Map(await b.holders(['n1', 'n2', 'n3', 'n4']));
      const ofA = [...before].filter(([, h]) => h === 'controller-a').map(([n]) => n);
      const terms = new Map(ofA.map((n) => [n, a.termFor(n)!]));
      const lostAt = Date.now();
      // Its store fails from now on: its next tick fails, and it drops what it held.
      cutOff.get(a)!();
      // At its first failed tick, and in any case before its leases could expire for the other (a busy machine delays ticks).
      await waitFor(() => a.heldCount === 0, { timeoutMs: timing.ttlMs, what: 'every lease dropped' });
      expect(Date.now() - lostAt).to.be.below(timing.ttlMs);
      for (const n of ofA) expect(a.termFor(n), n).to.equal(undefined);
      await waitFor(() => b.heldCount === 4, { timeoutMs: timing.ttlMs + timing.renewEveryMs * 4, what: 'the survivor holds all four' });
      for (const n of ofA) expect(b.termFor(n), n).to.be.greaterThan(terms.get(n)!);
      expect((await b.controllers()).map((e) => e.id)).to.deep.equal(['controller-b']);
      // Its lease is deleted once it has been gone a while: every start takes a new id, and dead ones must not pile up.
      await waitFor(async () => (await repos.leases.findById('controller:controller-a')) === null, { timeoutMs: 2_000 + timing.ttlMs + timing.renewEveryMs * 6, what: 'the gone Controller\'s lease deleted' });
      expect(await repos.leases.findById('controller:controller-b'), 'a live one is kept').to.not.equal(null);
    });

    it('gives up a Node revoked or deleted through another Controller at its next renewal', async () => {
      const b = members[1];
      await repos.nodes.update({ _id: 'n1' }, { adminState: 'REVOKED' });
      await repos.nodes.delete({ _id: 'n2' });
      // Dropped here first, then released in the store by a write of its own: the lease records follow a moment later.
      await waitFor(async () => b.termFor('n1') === undefined && b.termFor('n2') === undefined && [...(await b.holders(['n1', 'n2', 'n3', 'n4'])).keys()].sort().join() === 'n3,n4', { timeoutMs: 10_000, what: 'n1 and n2 given up and released' });
      expect(b.heldCount).to.equal(2);
    });

    it('hands Nodes over to a Controller that joins, one per round, never driven by two at once', async () => {
      const b = members[1];
      for (const id of ['n6', 'n7']) await repos.nodes.insert(node(id));
      await waitFor(() => b.heldCount === 4, { timeoutMs: 10_000, what: 'the survivor holds all four' });
      const c = member('controller-c');
      const joinedAt = Date.now();
      await c.membership.start({ address: 'c.example:8443', httpAddress: 'c.example:8080' });
      const fleet = ['n3', 'n4', 'n6', 'n7'];
      let doubly = 0;
      const watch = setInterval(() => {
        doubly += fleet.filter((n) => b.termFor(n) !== undefined && c.membership.termFor(n) !== undefined).length;
      }, 5);
      try {
        // A lease counts as held from its claim; its gain is told once the Node's record is read again.
        await waitFor(() => b.heldCount === 2 && c.membership.heldCount === 2 && c.changes.filter((ch) => ch === 'gained').length >= 2, { timeoutMs: 10_000, what: 'two Nodes each' });
      } finally {
        clearInterval(watch);
      }
      // Two Nodes handed back one per round, each claimed at the joiner's next round.
      expect(Date.now() - joinedAt).to.be.below(timing.renewEveryMs * 8 + timing.ttlMs);
      expect(doubly, 'samples of a Node driven by two').to.equal(0);
      expect(c.changes.filter((ch) => ch === 'gained')).to.have.length(2);
      const holders = await c.membership.holders(fleet);
      expect([...holders.values()].sort()).to.deep.equal(['controller-b', 'controller-b', 'controller-c', 'controller-c']);
    });
  });
}
