import { expect } from 'chai';
import { ServerFleet } from '../../src/controller/actors/server-fleet.js';
import type { Caller } from '../../src/controller/core/caller.js';
import { defaultRestartPolicy, emptyObserved } from '../../src/controller/domain/server-spec.js';
import type { Access } from '../../src/controller/services/access.js';
import type { ServiceDeps } from '../../src/controller/services/deps.js';
import type { NodeGateway } from '../../src/controller/services/node-gateway.js';
import { ServerWatchHub, type ServerChange, type ServerWatchEvent } from '../../src/controller/services/server-watch.js';
import { ServerPlacements } from '../../src/controller/services/server-placements.js';
import { ServerService } from '../../src/controller/services/servers.js';
import type { ServerDoc, UserDoc } from '../../src/controller/store/records.js';
import type { Repositories } from '../../src/controller/store/repositories.js';
import type { TemplateCatalog } from '../../src/controller/templates/template-catalog.js';
import { silentLogger } from '../../src/shared/logger.js';
import { waitFor } from '../support/wait-for.js';

const server = (id: string, teamId: string): ServerDoc => ({
  _id: id, name: id, teamId, nodeId: 'node-1', kind: 'GAME_SERVER', generation: 1, phase: 'READY', observed: { ...emptyObserved(), observedGeneration: 1 }, snapshot: undefined,
  desired: {
    state: 'STOPPED', software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 100, memoryBytes: 1024 }, inNetwork: false,
    restartPolicy: defaultRestartPolicy, acknowledgedConditions: [], restartNonce: 0,
  },
  createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
});

/** A promise resolved from outside, so a test decides when each permission check answers. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('server watch', () => {
  describe('ServerWatchHub.subscribeVisible', () => {
    it('checks one change at a time, so the visible ones leave in the order they happened', async () => {
      const hub = new ServerWatchHub();
      const checks = new Map<string, ReturnType<typeof deferred<boolean>>>();
      const seen: string[] = [];
      hub.subscribeVisible((doc) => {
        const check = deferred<boolean>();
        checks.set(doc._id, check);
        return check.promise;
      }, ({ doc }) => seen.push(doc._id), (err) => { throw err; });
      for (const id of ['a', 'b', 'c']) hub.publish({ doc: server(id, 'team'), deleted: false });
      await waitFor(() => checks.has('a'), { what: 'the first check' });
      await new Promise((resolve) => setImmediate(resolve));
      // The others wait their turn in the chain while the first is unanswered.
      expect([...checks.keys()]).to.deep.equal(['a']);
      checks.get('a')!.resolve(true);
      await waitFor(() => checks.has('b'), { what: 'the second check' });
      checks.get('b')!.resolve(false);
      await waitFor(() => checks.has('c'), { what: 'the third check' });
      checks.get('c')!.resolve(true);
      await waitFor(() => seen.length === 2, { what: 'two deliveries' });
      expect(seen).to.deep.equal(['a', 'c']);
    });

    it('reports a failed check and goes on; nothing arrives after unsubscribing', async () => {
      const hub = new ServerWatchHub();
      const failures: unknown[] = [];
      const seen: ServerChange[] = [];
      const unsubscribe = hub.subscribeVisible(async (doc) => {
        if (doc._id === 'broken') throw new Error('store down');
        return true;
      }, (change) => seen.push(change), (err) => failures.push(err));
      hub.publish({ doc: server('broken', 'team'), deleted: false });
      hub.publish({ doc: server('fine', 'team'), deleted: true });
      await waitFor(() => seen.length === 1, { what: 'the delivery after the failure' });
      expect(failures).to.have.length(1);
      expect(seen[0]).to.deep.include({ deleted: true });
      unsubscribe();
      hub.publish({ doc: server('late', 'team'), deleted: false });
      await new Promise((resolve) => setImmediate(resolve));
      expect(seen).to.have.length(1);
    });
  });

  describe('ServerService.watch', () => {
    it('sends the caller only servers of teams where it may read them, as list items or deletions', async () => {
      const hub = new ServerWatchHub();
      const asked: string[] = [];
      const access = { may: async (_user: UserDoc, teamId: string, permission: string) => (asked.push(permission), teamId === 'readable') } as unknown as Access;
      const nodes = { isConnected: () => true } as unknown as NodeGateway;
      const deps = { logger: silentLogger } as unknown as ServiceDeps;
      const noNodeChanges = { subscribe: () => () => undefined };
      const servers = new ServerService(deps, access, new ServerFleet(), {} as TemplateCatalog, nodes, hub, new ServerPlacements({} as Repositories), noNodeChanges);
      const caller = { kind: 'USER', user: { _id: 'u1' } } as Caller;
      const events: ServerWatchEvent[] = [];
      const unsubscribe = servers.watch(caller, (event) => events.push(event));
      hub.publish({ doc: server('hidden', 'other'), deleted: false });
      hub.publish({ doc: server('shown', 'readable'), deleted: false });
      hub.publish({ doc: server('gone', 'readable'), deleted: true });
      await waitFor(() => events.length === 2, { what: 'two events' });
      unsubscribe();
      expect(asked).to.deep.equal(['servers.read', 'servers.read', 'servers.read']);
      expect(events[0]).to.deep.include({ event: 'server' });
      expect(events[0].data).to.include({ id: 'shown', teamId: 'readable', convergence: 'CONVERGED' });
      expect(events[1]).to.deep.equal({ event: 'server-deleted', data: { id: 'gone' } });
    });
  });
});
