import { expect } from 'chai';
import { deriveConvergence, type ConvergenceInput } from '../../src/controller/domain/convergence.js';
import { bestFit, pickPort } from '../../src/controller/domain/placement.js';
import { emptyObserved } from '../../src/controller/domain/server-spec.js';

const GiB = 1 << 30;
const base: ConvergenceInput = { nodeConnected: true, phase: 'READY', generation: 2, desiredState: 'RUNNING', observed: emptyObserved() };
const observed = (o: Partial<ConvergenceInput['observed']>) => ({ ...emptyObserved(), ...o });

describe('convergence', () => {
  it('is UNKNOWN while the Node cannot be heard, whatever else', () => {
    expect(deriveConvergence({ ...base, nodeConnected: false, observed: observed({ observedGeneration: 2, runtimeState: 'RUNNING' }) })).to.equal('UNKNOWN');
  });
  it('is CONVERGED when the generation is observed and the runtime matches', () => {
    expect(deriveConvergence({ ...base, observed: observed({ observedGeneration: 2, runtimeState: 'RUNNING' }) })).to.equal('CONVERGED');
    expect(deriveConvergence({ ...base, desiredState: 'STOPPED', observed: observed({ observedGeneration: 2, runtimeState: 'STOPPED' }) })).to.equal('CONVERGED');
  });
  it('is CONVERGED for a sleeping server desired RUNNING, and DISCREPANCY for one just STOPPED', () => {
    expect(deriveConvergence({ ...base, observed: observed({ observedGeneration: 2, runtimeState: 'STOPPED', sleeping: { since: '2026-11-29T20:00:00.000Z' } }) })).to.equal('CONVERGED');
    expect(deriveConvergence({ ...base, observed: observed({ observedGeneration: 2, runtimeState: 'STOPPED' }) })).to.equal('DISCREPANCY');
  });
  it('is IN_PROGRESS for an unseen generation, a moving process, a pending restart or a workflow', () => {
    expect(deriveConvergence({ ...base, observed: observed({ observedGeneration: 1, runtimeState: 'STOPPED' }) })).to.equal('IN_PROGRESS');
    expect(deriveConvergence({ ...base, observed: observed({ observedGeneration: 2, runtimeState: 'STARTING' }) })).to.equal('IN_PROGRESS');
    expect(deriveConvergence({ ...base, observed: observed({ observedGeneration: 2, runtimeState: 'CRASHED', restarting: true }) })).to.equal('IN_PROGRESS');
    expect(deriveConvergence({ ...base, phase: 'PROVISIONING' })).to.equal('IN_PROGRESS');
  });
  it('is DISCREPANCY when crashed with restarts used up, or when FAILED', () => {
    expect(deriveConvergence({ ...base, observed: observed({ observedGeneration: 2, runtimeState: 'CRASHED' }) })).to.equal('DISCREPANCY');
    expect(deriveConvergence({ ...base, phase: 'FAILED' })).to.equal('DISCREPANCY');
  });
});

describe('placement', () => {
  const node = (nodeId: string, cpu: number, mem: number, reservedCpu = 0, reservedMem = 0, acceptsPlacements = true) => ({
    nodeId, acceptsPlacements, allocatable: { cpuMillis: cpu, memoryBytes: mem }, reserved: { cpuMillis: reservedCpu, memoryBytes: reservedMem },
  });

  it('chooses the Node left with the least spare capacity (best fit)', () => {
    const nodes = [node('a', 8000, 16 * GiB), node('b', 4000, 8 * GiB, 2000, 4 * GiB)];
    expect(bestFit(nodes, { cpuMillis: 1000, memoryBytes: 2 * GiB })).to.equal('b');
  });
  it('never overcommits CPU or memory', () => {
    const nodes = [node('a', 2000, 4 * GiB, 1500, 0), node('b', 8000, 4 * GiB, 0, 3.5 * GiB)];
    expect(bestFit(nodes, { cpuMillis: 1000, memoryBytes: 1 * GiB })).to.equal(undefined);
    expect(bestFit([node('a', 2000, 4 * GiB, 1000, 3 * GiB)], { cpuMillis: 1000, memoryBytes: 1 * GiB })).to.equal('a');
  });
  it('skips Nodes that do not accept placements (disabled or unhealthy)', () => {
    expect(bestFit([node('a', 8000, 16 * GiB, 0, 0, false), node('b', 8000, 16 * GiB)], { cpuMillis: 1, memoryBytes: 1 })).to.equal('b');
    expect(bestFit([node('a', 8000, 16 * GiB, 0, 0, false)], { cpuMillis: 1, memoryBytes: 1 })).to.equal(undefined);
  });
  it('breaks ties by Node id', () => {
    expect(bestFit([node('b', 1000, GiB), node('a', 1000, GiB)], { cpuMillis: 500, memoryBytes: GiB / 2 })).to.equal('a');
  });
  it('picks the lowest free port of the range, none when exhausted', () => {
    expect(pickPort({ first: 41565, last: 41567 }, new Set([41565]))).to.equal(41566);
    expect(pickPort({ first: 41565, last: 41566 }, new Set([41565, 41566]))).to.equal(undefined);
  });
});
