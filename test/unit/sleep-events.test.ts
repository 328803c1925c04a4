import { expect } from 'chai';
import { defaultRestartPolicy, emptyObserved, type ServerObserved } from '../../src/controller/domain/server-spec.js';
import { ServerTransitions } from '../../src/controller/services/notifications/server-events.js';
import { SleepAudit } from '../../src/controller/services/servers/sleep-audit.js';
import type { ServerDoc } from '../../src/controller/store/records.js';

const at = '2026-11-29T20:00:00.000Z';
const doc = (observed: Partial<ServerObserved>): ServerDoc => ({
  _id: 's1', name: 'napper', teamId: 't1', nodeId: 'n1', kind: 'GAME_SERVER', generation: 2, phase: 'READY',
  desired: {
    state: 'RUNNING', software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 100, memoryBytes: 1 << 26 }, inNetwork: false,
    restartPolicy: defaultRestartPolicy, acknowledgedConditions: [], restartNonce: 0, sleep: { afterEmptySeconds: 60, wakeOnJoin: true },
  },
  observed: { ...emptyObserved(), observedGeneration: 2, ...observed }, createdAt: at, updatedAt: at,
});

describe('sleep and wake events, read off a server\'s reported status', () => {
  it('webhooks: server.slept instead of server.stopped, server.woke with the player once per wake', () => {
    const transitions = new ServerTransitions();
    transitions.seed([doc({ runtimeState: 'RUNNING' })]);
    const events = (observed: Partial<ServerObserved>) => transitions.changed({ doc: doc(observed), deleted: false }).map((e) => [e.event, e.details]);
    expect(events({ runtimeState: 'STOPPING' })).to.deep.equal([]);
    expect(events({ runtimeState: 'STOPPED', sleeping: { since: at } })).to.deep.equal([['server.slept', { since: at }]]);
    expect(events({ runtimeState: 'STOPPED', sleeping: { since: at } }), 'a repeated report').to.deep.equal([]);
    const wake = { at: '2026-11-29T20:05:00.000Z', player: 'Alex' };
    expect(events({ runtimeState: 'STARTING', lastWake: wake })).to.deep.equal([['server.woke', { at: wake.at, player: 'Alex' }]]);
    expect(events({ runtimeState: 'RUNNING', lastWake: wake })).to.deep.equal([['server.started', {}]]);
    expect(events({ runtimeState: 'STOPPED' }), 'a plain stop is still told').to.deep.equal([['server.stopped', {}]]);
  });

  it('audit: server.slept and server.woke from the difference of two statuses, nothing for the same status again', async () => {
    const written: { action: string; details?: Record<string, unknown> }[] = [];
    const audit = new SleepAudit({ recordSystem: async (e) => void written.push({ action: e.action, details: e.details }) });
    const awake = doc({ runtimeState: 'RUNNING' }).observed;
    const asleep = doc({ runtimeState: 'STOPPED', sleeping: { since: at } }).observed;
    const woken = doc({ runtimeState: 'STARTING', lastWake: { at: '2026-11-29T20:05:00.000Z' } }).observed;
    await audit.reported('s1', 'n1', awake, asleep);
    await audit.reported('s1', 'n1', asleep, asleep);
    await audit.reported('s1', 'n1', asleep, woken);
    await audit.reported('s1', 'n1', woken, { ...woken, runtimeState: 'RUNNING' });
    expect(written).to.deep.equal([
      { action: 'server.slept', details: { nodeId: 'n1', since: at } },
      { action: 'server.woke', details: { nodeId: 'n1', at: '2026-11-29T20:05:00.000Z' } },
    ]);
  });
});
