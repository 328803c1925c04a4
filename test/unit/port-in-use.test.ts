import { expect } from 'chai';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { createActor, fromCallback, fromPromise, waitFor, type EventObject } from 'xstate';
import { portHeld } from '../../src/agent/reconciler/port-check.js';
import type { PortCheckResult } from '../../src/agent/reconciler/port-in-use.js';
import { agentServerMachine, type ProbeResult } from '../../src/agent/reconciler/server-machine.js';
import { runtimeStateOf, type AgentServerState } from '../../src/agent/reconciler/runtime-state-of.js';
import type { ServerTarget } from '../../src/agent/reconciler/server-target.js';
import { freeGamePort } from '../../src/controller/domain/placement.js';
import { explainPortInUse } from '../../src/controller/domain/port-in-use.js';
import { foreignPortMemoryMs, PortRefusals } from '../../src/controller/services/servers/port-refusals.js';
import type { Clock } from '../../src/shared/clock.js';

/** Time that moves only when told: the millisecond edges below must not depend on how busy the machine is. */
class FrozenClock implements Clock {
  private at = Date.parse('2026-11-24T00:00:00Z');
  now(): Date {
    return new Date(this.at);
  }
  advance(ms: number): void {
    this.at += ms;
  }
}
import { privateGamePorts } from '../support/game-ports.js';

describe('game ports held by other programs', () => {
  describe('freeGamePort: where a server goes', () => {
    const range = { first: 41000, last: 41004 };

    it('takes the lowest port no server, no other program and not the network holds', () => {
      expect(freeGamePort(range, { servers: [41000], foreign: [41001], network: 41002 })).to.equal(41003);
      expect(freeGamePort(range, { servers: [], foreign: [], network: 41000 })).to.equal(41001);
      expect(freeGamePort(range, { servers: [41001], foreign: [41003] })).to.equal(41000);
    });

    it('says none is left when the whole range is held, whoever holds it', () => {
      expect(freeGamePort(range, { servers: [41000, 41002], foreign: [41001, 41004], network: 41003 })).to.equal(undefined);
      expect(freeGamePort({ first: 41000, last: 41000 }, { servers: [], foreign: [41000] })).to.equal(undefined);
    });

    it('ignores what lies outside the range', () => {
      expect(freeGamePort(range, { servers: [40999, 41005], foreign: [1], network: 47000 })).to.equal(41000);
    });
  });

  describe('PortRefusals: what the Controller remembers', () => {
    it('avoids a refused port on its host for a while, then forgets it', () => {
      const clock = new FrozenClock();
      const refusals = new PortRefusals(clock);
      refusals.refused('n1', 41000);
      expect([...refusals.foreignOn(['n1'])]).to.deep.equal([41000]);
      expect([...refusals.foreignOn(['n1', 'n2'])], 'a Node of the same host shares its ports').to.deep.equal([41000]);
      expect([...refusals.foreignOn(['n2'])], 'another host has its own ports').to.deep.equal([]);
      clock.advance(foreignPortMemoryMs - 1);
      expect([...refusals.foreignOn(['n1'])]).to.deep.equal([41000]);
      clock.advance(1);
      expect([...refusals.foreignOn(['n1'])]).to.deep.equal([]);
    });

    it('keeps every port of a Node avoided while told to (a server with no port left)', () => {
      const clock = new FrozenClock();
      const refusals = new PortRefusals(clock);
      refusals.refused('n1', 41000);
      clock.advance(foreignPortMemoryMs - 1000);
      refusals.refused('n1', 41001);
      refusals.keep('n1');
      clock.advance(foreignPortMemoryMs - 1);
      expect([...refusals.foreignOn(['n1'])].sort()).to.deep.equal([41000, 41001]);
      clock.advance(1);
      expect([...refusals.foreignOn(['n1'])]).to.deep.equal([]);
    });

    it('notes a server with no port left once, on its Node only, until it settles', () => {
      const refusals = new PortRefusals(new FrozenClock());
      const range = { first: 41000, last: 41001 };
      expect(refusals.noneLeft('s1', 'n1', range)).to.equal(true);
      expect(refusals.noneLeft('s1', 'n1', range), 'the same news twice is no news').to.equal(false);
      expect(refusals.noneLeftOf('s1', 'n1')).to.deep.equal(range);
      expect(refusals.noneLeftOf('s1', 'n2')).to.equal(undefined);
      refusals.settled('s1');
      expect(refusals.noneLeftOf('s1', 'n1')).to.equal(undefined);
    });
  });

  it('explainPortInUse says no port is left in the range, on PORT_IN_USE only', () => {
    const conditions = [
      { id: 's1:port-in-use', source: 'AGENT' as const, reason: 'PORT_IN_USE', message: 'Port 41001 is held by another program.', since: '2025-01-01T00:00:00.000Z' },
      { id: 's1:x', source: 'AGENT' as const, reason: 'DISK_PRESSURE', message: 'Disk.', since: '2025-01-01T00:00:00.000Z' },
    ];
    expect(explainPortInUse(conditions, undefined)).to.deep.equal(conditions);
    const shown = explainPortInUse(conditions, { first: 41000, last: 41001 });
    expect(shown[0].message).to.match(/^Port 41001 is held by another program\. No free port is left in the range 41000-41001/);
    expect(shown[1]).to.deep.equal(conditions[1]);
  });

  it('portHeld: a port another program listens on is held, a free one is not', async () => {
    const { first } = await privateGamePorts();
    expect(await portHeld(first, '127.0.0.1')).to.equal(false);
    const other = createServer();
    other.listen({ port: first, host: '127.0.0.1' });
    await once(other, 'listening');
    try {
      expect(await portHeld(first, '127.0.0.1')).to.equal(true);
      expect(await portHeld(first, '0.0.0.0'), 'the wildcard address overlaps the loopback listener').to.equal(true);
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
    expect(await portHeld(first, '127.0.0.1'), 'the check leaves the port free behind it').to.equal(false);
  });

  describe('agent server machine', () => {
    const desired = (over: Partial<ServerTarget> = {}): ServerTarget => ({
      serverId: 's1', generation: 2, state: 'RUNNING', software: { template: 'simcraft', version: '1.21.4' },
      resources: { cpuMillis: 1000, memoryBytes: 1 << 30 }, gamePort: 41000, inNetwork: false,
      restartPolicy: { maxRestarts: 2, windowSeconds: 60 }, acknowledgedConditions: [], restartNonce: 0, wakeNonce: 0, ...over,
    });

    function harness(heldPorts: Set<number>) {
      const starts: number[] = [];
      const machine = agentServerMachine.provide({
        actors: {
          probe: fromPromise<ProbeResult, { desired: ServerTarget }>(async () => ({ installed: true, running: false })),
          checkPort: fromPromise<PortCheckResult, { desired: ServerTarget }>(async ({ input }) =>
            (heldPorts.has(input.desired.gamePort) ? { held: true, message: `Port ${input.desired.gamePort} is held by another program.` } : { held: false })),
          start: fromPromise<void, { desired: ServerTarget }>(async ({ input }) => {
            starts.push(input.desired.gamePort);
          }),
          watchReady: fromCallback<EventObject, { desired: ServerTarget }>(() => () => undefined),
          stop: fromPromise<void, { desired: ServerTarget }>(async () => undefined),
          remove: fromPromise<void, { desired: ServerTarget }>(async () => undefined),
        },
      });
      return { starts, actor: createActor(machine, { input: { desired: desired(), backoffBaseMs: 5 } }).start() };
    }
    const inState = (state: AgentServerState) => (s: { value: unknown }) => s.value === state;

    it('starts nothing on a held port: STOPPED with PORT_IN_USE, no crash counted; a new port starts, and running clears it', async () => {
      const { starts, actor } = harness(new Set([41000]));
      const blocked = await waitFor(actor, inState('portBlocked'));
      expect(starts).to.deep.equal([]);
      expect(runtimeStateOf('portBlocked', blocked.context)).to.equal('STOPPED');
      expect(blocked.context.crashes).to.deep.equal([]);
      expect(blocked.context.lastCrash).to.equal(undefined);
      expect(blocked.context.portInUse).to.equal(41000);
      expect(blocked.context.conditions).to.deep.equal([{ id: 's1:port-in-use', reason: 'PORT_IN_USE', message: 'Port 41000 is held by another program.', since: blocked.context.conditions[0].since }]);

      actor.send({ type: 'DESIRED', desired: desired({ generation: 3, gamePort: 41001 }), at: Date.now() });
      const starting = await waitFor(actor, inState('starting'));
      expect(starts).to.deep.equal([41001]);
      expect(starting.context.conditions.map((c) => c.reason), 'shown until the game runs').to.deep.equal(['PORT_IN_USE']);
      actor.send({ type: 'READY_LINE' });
      const running = await waitFor(actor, inState('running'));
      expect(running.context.conditions).to.deep.equal([]);
      expect(running.context.portInUse).to.equal(undefined);
      actor.stop();
    });

    it('a stop desired while the port is held clears PORT_IN_USE', async () => {
      const { actor } = harness(new Set([41000]));
      await waitFor(actor, inState('portBlocked'));
      actor.send({ type: 'DESIRED', desired: desired({ generation: 3, state: 'STOPPED' }), at: Date.now() });
      const stopped = await waitFor(actor, inState('stopped'));
      expect(stopped.context.conditions).to.deep.equal([]);
      actor.stop();
    });
  });
});
