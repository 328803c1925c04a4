import { expect } from 'chai';
import type { Caller } from '../../src/controller/core/caller.js';
import { defaultRestartPolicy, emptyObserved } from '../../src/controller/domain/server-spec.js';
import type { Access } from '../../src/controller/services/identity/access.js';
import { AccessEvents } from '../../src/controller/services/identity/access-events.js';
import type { ServiceDeps } from '../../src/controller/services/deps.js';
import { ServerWatchStream } from '../../src/controller/services/servers/watch-stream.js';
import { ServerChangeHub } from '../../src/controller/services/servers/change-hub.js';
import { serverListItem } from '../../src/controller/services/servers/views.js';
import { ServerWatcher, type JournalEntry, type StreamedWatchEvent } from '../../src/controller/services/servers/watch-client.js';
import type { StreamGuards } from '../../src/controller/services/identity/stream-guard.js';
import type { RingEntry } from '../../src/controller/services/servers/watch-ring.js';
import type { ServerWatchEnd } from '../../src/controller/schemas/watch-events.js';
import type { ServerDoc, UserDoc } from '../../src/controller/store/records.js';
import { silentLogger } from '../../src/shared/logger.js';
import { waitFor } from '../support/wait-for.js';

const server = (id: string, teamId: string, state: 'STOPPED' | 'RUNNING' = 'STOPPED'): ServerDoc => ({
  _id: id, name: id, teamId, nodeId: 'node-1', kind: 'GAME_SERVER', generation: 1, phase: 'READY', observed: { ...emptyObserved(), observedGeneration: 1 },
  desired: {
    state, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 100, memoryBytes: 1024 }, inNetwork: false,
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

const entry = (seq: number, id: string, teamId = 'team'): RingEntry<JournalEntry> =>
  ({ seq, at: 0, value: { teamId, serverId: id, change: { event: 'server-deleted', data: { id } } } });

/** A sink that keeps what it is sent, its `end` and whether it was closed. */
const collector = () => {
  const sent: StreamedWatchEvent[] = [];
  const sink = {
    sent, closed: false, ended: undefined as ServerWatchEnd | undefined,
    send: (e: StreamedWatchEvent) => sent.push(e),
    end: (e: ServerWatchEnd) => (sink.ended = e),
    close: () => (sink.closed = true),
  };
  return sink;
};

const listed = (id: string, teamId: string): StreamedWatchEvent => ({ event: 'server', data: serverListItem(server(id, teamId), true), id: `s-${id}` });

describe('server watch', () => {
  describe('ServerWatcher: one client\'s ordered delivery', () => {
    it('checks one change at a time, so the visible ones leave in the order they happened, and counts them in `synced`', async () => {
      const checks = new Map<string, ReturnType<typeof deferred<boolean>>>();
      const watcher = new ServerWatcher((seq) => `e-${seq}`, (teamId) => {
        const check = deferred<boolean>();
        checks.set(teamId, check);
        return check.promise;
      }, () => undefined, (err) => { throw err; });
      const sink = collector();
      watcher.start(sink);
      watcher.change(entry(1, 'a', 'ta'));
      watcher.change(entry(2, 'b', 'tb'));
      watcher.change(entry(3, 'c', 'tc'));
      watcher.synced(false, 4);
      await waitFor(() => checks.has('ta'), { what: 'the first check' });
      await new Promise((resolve) => setImmediate(resolve));
      // The others wait their turn in the chain while the first is unanswered.
      expect([...checks.keys()]).to.deep.equal(['ta']);
      checks.get('ta')!.resolve(true);
      await waitFor(() => checks.has('tb'), { what: 'the second check' });
      checks.get('tb')!.resolve(false);
      await waitFor(() => checks.has('tc'), { what: 'the third check' });
      checks.get('tc')!.resolve(true);
      await waitFor(() => sink.sent.length === 3, { what: 'two changes and synced' });
      expect(sink.sent.map((e) => e.id)).to.deep.equal(['e-1', 'e-3', 'e-4']);
      expect(sink.sent[2]).to.deep.equal({ event: 'synced', data: { snapshot: false, events: 2 }, id: 'e-4' });
    });

    it('sends nothing before start; a failed check ends the stream (the client resumes) and nothing follows', async () => {
      const failures: unknown[] = [];
      let left = false;
      const watcher = new ServerWatcher((seq) => `e-${seq}`, async (teamId) => {
        if (teamId === 'broken') throw new Error('store down');
        return true;
      }, () => (left = true), (err) => failures.push(err));
      watcher.change(entry(1, 'fine'));
      watcher.change(entry(2, 'x', 'broken'));
      watcher.change(entry(3, 'later'));
      const sink = collector();
      await new Promise((resolve) => setImmediate(resolve));
      expect(sink.sent).to.deep.equal([]);
      watcher.start(sink);
      await waitFor(() => sink.closed, { what: 'the stream to end' });
      expect(sink.sent.map((e) => e.id)).to.deep.equal(['e-1']);
      expect(failures).to.have.length(1);
      expect(left).to.equal(true);
    });

    it('a re-check tells the client the servers it may no longer read are gone, after every change queued before it', async () => {
      const watcher = new ServerWatcher((seq) => `e-${seq}`, async () => true, () => undefined, (err) => { throw err; });
      const sink = collector();
      watcher.start(sink);
      watcher.ready(listed('a', 'kept'));
      watcher.ready(listed('b', 'lost'));
      watcher.change({ ...entry(3, 'c', 'lost'), value: { teamId: 'lost', serverId: 'c', change: { event: 'server', data: serverListItem(server('c', 'lost'), true) } } });
      watcher.recheck(async () => (teamId) => teamId === 'kept', () => 'e-4');
      await waitFor(() => sink.sent.length === 5, { what: 'the removals' });
      expect(sink.sent.slice(3)).to.deep.equal([{ event: 'server-deleted', data: { id: 'b' }, id: 'e-4' }, { event: 'server-deleted', data: { id: 'c' }, id: 'e-4' }]);
      expect(sink.ended).to.equal(undefined);
    });

    it('a re-check that finds the credential gone ends the stream with access_revoked; nothing follows', async () => {
      let left = false;
      const watcher = new ServerWatcher((seq) => `e-${seq}`, async () => true, () => (left = true), (err) => { throw err; });
      const sink = collector();
      watcher.start(sink);
      watcher.recheck(async () => undefined, () => 'e-1');
      watcher.change(entry(2, 'late'));
      await waitFor(() => left, { what: 'the stream to end' });
      await new Promise((resolve) => setImmediate(resolve));
      expect(sink.ended).to.deep.equal({ reason: 'access_revoked' });
      expect(sink.sent).to.deep.equal([]);
    });
  });

  describe('ServerWatchStream', () => {
    const docs = [server('s1', 'readable'), server('s2', 'other'), server('s3', 'readable')];
    const user = { _id: 'u1' } as UserDoc;
    const caller = { kind: 'USER', user } as Caller;
    let hub: ServerChangeHub;
    let feed: ServerWatchStream;
    let read: ReturnType<typeof deferred<void>> | undefined;
    let accessEvents: AccessEvents;

    beforeEach(() => {
      accessEvents = new AccessEvents();
      // Re-checks are the integration tests' (stream-revocation); here the caller keeps its access.
      const guards = { watch: () => () => undefined, current: async (c: Caller) => c } as unknown as StreamGuards;
      read = undefined;
      hub = new ServerChangeHub();
      const access = {
        teamsWith: async () => ['readable'],
        may: async (_user: UserDoc, teamId: string) => teamId === 'readable',
      } as unknown as Access;
      const deps = {
        logger: silentLogger, clock: { now: () => new Date() },
        repos: {
          servers: {
            find: async (filter: { teamId: { $in: string[] } }) => {
              const found = docs.filter((d) => filter.teamId.$in.includes(d.teamId));
              await read?.promise;
              return found;
            },
          },
        },
      } as unknown as ServiceDeps;
      feed = new ServerWatchStream(hub, (doc) => serverListItem(doc, true), access, deps, guards, accessEvents);
    });

    const open = async (lastEventId?: string) => {
      const sink = collector();
      (await feed.open(caller, lastEventId)).start(sink);
      return sink;
    };
    const synced = (sink: ReturnType<typeof collector>) => waitFor(() => sink.sent.find((e) => e.event === 'synced'), { what: 'synced' });

    it('opens with the readable servers in creation order, ids `<epoch>-<seq>.<n>`, then `synced`', async () => {
      hub.publish({ doc: docs[0], deleted: false });
      const sink = await open();
      const done = await synced(sink);
      expect(sink.sent.map((e) => [e.event, e.id])).to.deep.equal([['server', `${feed.epoch}-1.1`], ['server', `${feed.epoch}-1.2`], ['synced', `${feed.epoch}-2`]]);
      expect(sink.sent.map((e) => (e.event === 'server' ? e.data.id : undefined))).to.deep.equal(['s1', 's3', undefined]);
      expect(done.data).to.deep.equal({ snapshot: true, events: 2 });
    });

    it('a change while the snapshot is read shows in the snapshot as its journal has it, and is not sent again', async () => {
      read = deferred<void>();
      const opening = open();
      await new Promise((resolve) => setImmediate(resolve));
      hub.publish({ doc: server('s3', 'readable', 'RUNNING'), deleted: false });
      hub.publish({ doc: server('s4', 'readable', 'RUNNING'), deleted: false });
      hub.publish({ doc: docs[0], deleted: true });
      read.resolve();
      const sink = await opening;
      await synced(sink);
      expect(sink.sent.map((e) => (e.event === 'server' ? [e.data.id, e.data.desiredState] : e.event))).to.deep.equal([['s3', 'RUNNING'], ['s4', 'RUNNING'], 'synced']);
      hub.publish({ doc: server('s3', 'readable'), deleted: false });
      await waitFor(() => sink.sent.length === 4, { what: 'the later change' });
      expect(sink.sent[3]).to.deep.include({ event: 'server', id: `${feed.epoch}-5` });
    });

    it('resumes from `Last-Event-ID` with exactly the readable changes missed; other ids get a fresh snapshot', async () => {
      const first = await open();
      const mark = (await synced(first)).id;
      first.sent.length = 0;
      hub.publish({ doc: server('s1', 'readable', 'RUNNING'), deleted: false });
      hub.publish({ doc: server('s2', 'other', 'RUNNING'), deleted: false });
      hub.publish({ doc: server('s3', 'readable'), deleted: true });
      const resumed = await open(mark);
      expect((await synced(resumed)).data).to.deep.equal({ snapshot: false, events: 2 });
      await waitFor(() => first.sent.length === 2, { what: 'the live client to see both' });
      expect(resumed.sent.slice(0, 2)).to.deep.equal(first.sent);
      for (const stale of [`${feed.epoch}-1.1`, `ffffffff-${mark.split('-')[1]}`, `${feed.epoch}-999`, 'garbage', '']) {
        const fresh = await open(stale);
        expect((await synced(fresh)).data, stale).to.deep.equal({ snapshot: true, events: 2 });
      }
    });

    it('changes of other Controllers are journaled as its own, shared never back; lost track, every client reconnects to a snapshot', async () => {
      const own: JournalEntry[] = [];
      feed.onOwnChange((value) => own.push(value));
      const first = await open();
      const mark = (await synced(first)).id;
      hub.publish({ doc: server('s1', 'readable', 'RUNNING'), deleted: false });
      const remote: JournalEntry = { teamId: 'readable', serverId: 's9', change: { event: 'server-deleted', data: { id: 's9' } } };
      feed.heard(remote);
      feed.heard({ ...remote, teamId: 'other' });
      await waitFor(() => first.sent.length === 5, { what: 'both readable changes' });
      const after = Number(mark.split('-')[1]);
      expect(first.sent.slice(3).map((e) => [e.event, e.id])).to.deep.equal([['server', `${feed.epoch}-${after + 1}`], ['server-deleted', `${feed.epoch}-${after + 2}`]]);
      expect(own.map((v) => v.serverId), 'only its own go to the feed').to.deep.equal(['s1']);
      const resumed = await open(mark);
      expect((await synced(resumed)).data).to.deep.equal({ snapshot: false, events: 2 });
      feed.lostTrack();
      await waitFor(() => first.closed && resumed.closed, { what: 'both clients closed' });
      const again = await open(first.sent.at(-1)!.id);
      expect((await synced(again)).data, 'a snapshot, not a resume').to.deep.equal({ snapshot: true, events: 2 });
    });

    it('a client resuming from before its access changed gets a fresh snapshot, so it forgets what it may no longer read', async () => {
      const first = await open();
      const mark = (await synced(first)).id;
      hub.publish({ doc: server('s1', 'readable', 'RUNNING'), deleted: false });
      accessEvents.publish({ userId: 'someone-else', kind: 'membership_changed' });
      expect((await synced(await open(mark))).data).to.deep.equal({ snapshot: false, events: 1 });
      accessEvents.publish({ userId: user._id, kind: 'membership_changed' });
      expect((await synced(await open(mark))).data).to.deep.equal({ snapshot: true, events: 2 });
    });
  });
});
