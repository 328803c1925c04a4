import { expect } from 'chai';
import type { NodeInfo, ServerDetail, ServerItem } from '../../src/cli/api-types.js';
import { rows } from '../../src/cli/output.js';
import { cores, isRunning, nodeTopOf, nodeTopView, percent, serverTopOf, serverTopView, sortServerTops, type ServerTop } from '../../src/cli/top-rows.js';

const Mi = 2 ** 20;
const Gi = 2 ** 30;

const item = (over: Partial<ServerItem> = {}): ServerItem => ({
  id: 's1', name: 'lobby', teamId: 't1', nodeId: 'n1', kind: 'GAME_SERVER', inNetwork: false, desiredState: 'RUNNING', generation: 1,
  phase: 'READY', runtimeState: 'RUNNING', convergence: 'CONVERGED', software: { template: 'simcraft', version: '1.21.4' },
  resources: { cpuMillis: 1000, memoryBytes: Gi }, conditionCount: 0, ...over,
});

const detail = (over: Partial<ServerDetail['status']> = {}, itemOver: Partial<ServerItem> = {}): ServerDetail => ({
  ...item(itemOver), observedGeneration: 1, ports: [], restartPolicy: { maxRestarts: 3, windowSeconds: 300 }, conditions: [],
  acknowledgedConditions: [], markers: [], createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z',
  status: { runtimeState: 'RUNNING', usage: { cpuMillis: 120, memoryBytes: 312 * Mi, diskBytes: 0 }, conditions: [], ...over },
});

const node = (over: Partial<NodeInfo> = {}): NodeInfo => ({
  id: 'n1', name: 'node-1', adminState: 'ENABLED', acceptsPlacements: true, createdAt: '2026-01-01T00:00:00Z', conditions: [],
  status: {
    connectionState: 'HEALTHY', agentVersion: '0.1.0', hostname: 'h', os: 'linux', arch: 'x64', runtimeName: 'node', runtimeVersion: '20',
    allocatable: { cpuMillis: 4000, memoryBytes: 8 * Gi, diskBytes: 0 }, usage: { cpuMillis: 1200, memoryBytes: 2 * Gi, diskBytes: 0 },
  },
  reserved: { cpuMillis: 3000, memoryBytes: 3 * Gi }, free: { cpuMillis: 1000, memoryBytes: 5 * Gi }, ...over,
});

const names = { node: (id: string | undefined) => (id === 'n1' ? 'node-1' : id) };

describe('cairn top: rows from the API\'s objects', () => {
  it('a running server: usage of its reservation in cores and binary units, players online of the most', () => {
    const row = serverTopOf(detail({ players: { online: 3, max: 20 } }, { playersOnline: 3 }), names);
    expect(row).to.deep.equal({ name: 'lobby', node: 'node-1', cpuMillis: 120, cpuReservedMillis: 1000, memoryBytes: 312 * Mi, memoryReservedBytes: Gi, playersOnline: 3, playersMax: 20 });
    expect(rows(serverTopView, [row], false)).to.deep.equal([['NAME', 'NODE', 'CPU', 'MEMORY', 'PLAYERS'], ['lobby', 'node-1', '0.12/1.00', '312Mi/1Gi', '3/20']]);
  });

  it('players unknown: no player fields, `-` in the table; the list item\'s count stands in when the detail has none', () => {
    const unknown = serverTopOf(detail(), names);
    expect(unknown).to.not.have.any.keys('playersOnline', 'playersMax');
    expect(rows(serverTopView, [unknown], false, false)[0][4]).to.equal('-');
    const fromList = serverTopOf(detail({}, { playersOnline: 5 }), names);
    expect(fromList).to.include({ playersOnline: 5 }).and.not.have.key('playersMax');
    expect(rows(serverTopView, [fromList], false, false)[0][4]).to.equal('5');
  });

  it('only RUNNING and STARTING servers count as running', () => {
    const states = ['STOPPED', 'STARTING', 'RUNNING', 'STOPPING', 'CRASHED', undefined] as const;
    expect(states.filter((runtimeState) => isRunning(item({ runtimeState })))).to.deep.equal(['STARTING', 'RUNNING']);
  });

  it('sorts busiest first by cpu, memory or players (unknown players last), names A to Z; ties by name', () => {
    const r = (name: string, cpuMillis: number, memoryBytes: number, playersOnline?: number): ServerTop =>
      ({ name, cpuMillis, cpuReservedMillis: 1000, memoryBytes, memoryReservedBytes: Gi, ...(playersOnline === undefined ? {} : { playersOnline }) });
    const all = [r('b', 10, 300, 2), r('a', 500, 100), r('c', 10, 200, 0), r('d', 20, 400, 7)];
    const order = (by: Parameters<typeof sortServerTops>[1]) => sortServerTops(all, by).map((x) => x.name).join('');
    expect(order('cpu')).to.equal('adbc');
    expect(order('memory')).to.equal('dbca');
    expect(order('players')).to.equal('dbca');
    expect(order('name')).to.equal('abcd');
    expect(all.map((x) => x.name).join('')).to.equal('bacd');
  });

  it('a Node: host usage with its share of what it offers, reservations of it, its servers and their players', () => {
    const servers = [item({ id: 'a', playersOnline: 3 }), item({ id: 'b', playersOnline: 4, runtimeState: 'STOPPED' }), item({ id: 'c' }), item({ id: 'd', nodeId: 'n2', playersOnline: 9 })];
    const row = nodeTopOf(node(), servers);
    expect(row).to.deep.equal({
      name: 'node-1', connection: 'HEALTHY', cpuMillis: 1200, cpuAllocatableMillis: 4000, cpuReservedMillis: 3000,
      memoryBytes: 2 * Gi, memoryAllocatableBytes: 8 * Gi, memoryReservedBytes: 3 * Gi, servers: 3, playersOnline: 7,
    });
    expect(rows(nodeTopView, [row], false)).to.deep.equal([
      ['NAME', 'CONNECTION', 'CPU', 'CPU%', 'MEMORY', 'MEMORY%', 'RESERVED-CPU', 'RESERVED-MEMORY', 'SERVERS', 'PLAYERS'],
      ['node-1', 'HEALTHY', '1.20', '30%', '2Gi', '25%', '3.00/4.00', '3Gi/8Gi', '3', '7'],
    ]);
  });

  it('a Node with no servers or none reporting players shows `-`; one offering nothing yet shows no percentage', () => {
    const empty = nodeTopOf(node(), [item({ id: 'x', playersOnline: undefined })]);
    expect(empty).to.not.have.key('playersOnline');
    expect(rows(nodeTopView, [empty], false, false)[0][9]).to.equal('-');
    expect(percent(5, 0)).to.equal('-');
    expect(cores(0)).to.equal('0.00');
    expect(cores(2500)).to.equal('2.50');
  });
});
