import { expect } from 'chai';
import { defaultRestartPolicy, emptyObserved, type ServerObserved } from '../../src/controller/domain/server-spec.js';
import { CrashReports, ServerTransitions } from '../../src/controller/services/notifications/server-events.js';
import type { ServerDoc } from '../../src/controller/store/records.js';

const storedAt = '2026-11-30T03:00:00.000Z';
const doc = (observed: Partial<ServerObserved>): ServerDoc => ({
  _id: 's1', name: 'lobby', teamId: 't1', nodeId: 'n1', kind: 'GAME_SERVER', generation: 2, phase: 'READY',
  desired: {
    state: 'RUNNING', software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 100, memoryBytes: 1 << 26 }, inNetwork: false,
    restartPolicy: defaultRestartPolicy, acknowledgedConditions: [], restartNonce: 0,
  },
  observed: { ...emptyObserved(), observedGeneration: 2, reportedAt: storedAt, ...observed }, createdAt: storedAt, updatedAt: storedAt,
});
const crashAt = (iso: string) => ({ at: iso, exitCode: 137, signal: 'SIGKILL', reason: 'OOM_KILLED', restarts: 0, lastLines: ['secret console line'] });

describe('events of what happened while no Controller heard the Agent', () => {
  // The Controller started well after the crash: the old rule (crashes since this start only) told nothing.
  const startedAtMs = Date.parse('2026-11-30T03:10:00.000Z');

  it('a crash newer than the stored status is told at the first report, once, without its lines', () => {
    const crashes = new CrashReports(startedAtMs);
    crashes.seed([doc({ runtimeState: 'RUNNING' })]);
    const crash = crashAt('2026-11-30T03:05:00.000Z');
    expect(crashes.reported('s1', crash, false)).to.deep.equal({ at: crash.at, exitCode: 137, signal: 'SIGKILL', reason: 'OOM_KILLED', restarts: 0 });
    expect(crashes.reported('s1', crash, false), 'the same crash reported again').to.equal(undefined);
    const next = crashAt('2026-11-30T03:11:00.000Z');
    expect(crashes.reported('s1', next, false), 'a later crash').to.include({ at: next.at });
  });

  it('a crash the store had already heard of (older than its status) is not told again after a restart', () => {
    for (const at of ['2026-11-30T02:59:59.000Z', storedAt]) {
      const crashes = new CrashReports(startedAtMs);
      crashes.seed([doc({ runtimeState: 'RUNNING' })]);
      expect(crashes.reported('s1', crashAt(at), false), at).to.equal(undefined);
      expect(crashes.reported('s1', crashAt(at), false), `${at} reported again`).to.equal(undefined);
    }
  });

  it('a server never reported, or created after the start, has every crash told', () => {
    const crashes = new CrashReports(startedAtMs);
    crashes.seed([doc({ reportedAt: undefined })]);
    expect(crashes.reported('s1', crashAt('2026-11-30T01:00:00.000Z'), false)).to.not.equal(undefined);
    expect(crashes.reported('s2', crashAt('2026-11-30T03:10:00.001Z'), false)).to.not.equal(undefined);
    expect(crashes.reported('s3', crashAt('2026-11-30T03:09:00.000Z'), false), 'an unknown server\'s crash before the start').to.equal(undefined);
  });

  it('started, stopped and the crash loop are read off the stored status against the reported one', () => {
    const transitions = new ServerTransitions();
    transitions.seed([doc({ runtimeState: 'RUNNING' })]);
    const events = (observed: Partial<ServerObserved>) => transitions.changed({ doc: doc(observed), deleted: false }).map((e) => e.event);
    const loop = { id: 'c1', source: 'AGENT' as const, reason: 'CRASH_LOOP', message: 'crashed 3 times in 300 s', since: storedAt };
    expect(events({ runtimeState: 'CRASHED', conditions: [loop] })).to.deep.equal(['server.crash_loop']);
    expect(events({ runtimeState: 'CRASHED', conditions: [loop] }), 'the same report again').to.deep.equal([]);
    expect(events({ runtimeState: 'RUNNING' })).to.deep.equal(['server.started']);

    const restarted = new ServerTransitions();
    restarted.seed([doc({ runtimeState: 'RUNNING' })]);
    expect(restarted.changed({ doc: doc({ runtimeState: 'STOPPED' }), deleted: false }).map((e) => e.event)).to.deep.equal(['server.stopped']);
  });
});
