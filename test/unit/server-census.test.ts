import { expect } from 'chai';
import type { ServerDoc } from '../../src/controller/store/records.js';
import { ServerCensus } from '../../src/controller/services/servers/census.js';
import type { Repositories } from '../../src/controller/store/repositories.js';

/** Server i: READY, desired RUNNING; every third one's process is reported RUNNING, the rest never reported. */
const doc = (i: number) => ({
  _id: `s${i}`, nodeId: `n${i % 4}`, phase: 'READY', generation: 1, desired: { state: 'RUNNING' },
  observed: { observedGeneration: 1, ...(i % 3 === 0 ? { runtimeState: 'RUNNING' } : {}) },
}) as unknown as ServerDoc;

describe('ServerCensus: cairn_servers counts', () => {
  it('counts every server by phase, runtime state and convergence, giving the event loop turns while it counts', async () => {
    const docs = Array.from({ length: 12_000 }, (_, i) => doc(i));
    const repos = { servers: { findShared: async () => docs } } as unknown as Pick<Repositories, 'servers'>;
    // Node n3 is not heard: its servers are UNKNOWN whatever they reported.
    const census = new ServerCensus(repos, (nodeId) => nodeId !== 'n3');
    let turns = 0;
    let counting = true;
    const turn = () => {
      turns += 1;
      if (counting) setImmediate(turn);
    };
    setImmediate(turn);
    const { servers: tallies } = await census.tally();
    counting = false;
    expect(turns, 'other work ran between slices of the count').to.be.at.least(2);
    const count = (runtimeState: string, convergence: string) => tallies.find((t) => t.runtimeState === runtimeState && t.convergence === convergence)?.count ?? 0;
    const heard = docs.filter((_, i) => i % 4 !== 3);
    expect(count('RUNNING', 'CONVERGED')).to.equal(heard.filter((d) => Number(d._id.slice(1)) % 3 === 0).length);
    expect(count('NONE', 'DISCREPANCY')).to.equal(heard.filter((d) => Number(d._id.slice(1)) % 3 !== 0).length);
    expect(count('RUNNING', 'UNKNOWN') + count('NONE', 'UNKNOWN')).to.equal(3_000);
    expect(tallies.reduce((n, t) => n + t.count, 0)).to.equal(12_000);
  });

  it('sums the players of running servers by template, leaving out servers not heard and those that did not answer', async () => {
    const server = (id: string, template: string, nodeId: string, runtimeState: string, players?: { online: number; max: number }) => ({
      _id: id, nodeId, phase: 'READY', generation: 1, desired: { state: 'RUNNING', software: { template, version: '1' } },
      observed: { observedGeneration: 1, runtimeState, ...(players ? { players } : {}) },
    }) as unknown as ServerDoc;
    const docs = [
      server('a', 'paper', 'n1', 'RUNNING', { online: 3, max: 20 }),
      server('b', 'paper', 'n1', 'RUNNING', { online: 4, max: 20 }),
      server('c', 'velocity', 'n1', 'RUNNING', { online: 7, max: 500 }),
      server('d', 'paper', 'gone', 'RUNNING', { online: 50, max: 100 }),
      server('e', 'paper', 'n1', 'STOPPING', { online: 9, max: 20 }),
      server('f', 'vanilla', 'n1', 'RUNNING'),
    ];
    const repos = { servers: { findShared: async () => docs } } as unknown as Pick<Repositories, 'servers'>;
    const { players } = await new ServerCensus(repos, (nodeId) => nodeId !== 'gone').tally();
    expect(players).to.have.deep.members([{ template: 'paper', online: 7 }, { template: 'velocity', online: 7 }]);
  });
});
