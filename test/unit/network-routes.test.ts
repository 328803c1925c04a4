import { expect } from 'chai';
import { networkRoutes, restartPending, routable, type NetworkFacts } from '../../src/controller/domain/network.js';

const member = (serverId: string, name: string, over: Partial<NetworkFacts> = {}): NetworkFacts => ({
  serverId, name, kind: 'GAME_SERVER', nodeId: 'n1', gamePort: 30566, desiredState: 'RUNNING', desiredInNetwork: true,
  runtimeState: 'RUNNING', startedInNetwork: true, ...over,
});
const addresses: Record<string, string> = { n1: '10.0.0.1', n2: 'node-2.example', n3: '' };
const reach = (nodeId: string) => addresses[nodeId] ?? '';

describe('network rules', () => {
  it('routes only game servers running as members and meant to keep running, at a known address', () => {
    expect(routable(member('a', 'a'))).to.equal(true);
    for (const over of [
      { startedInNetwork: false }, { runtimeState: 'STARTING' as const }, { runtimeState: 'CRASHED' as const }, { desiredState: 'STOPPED' as const },
      { desiredState: 'DELETED' as const }, { kind: 'PROXY' as const },
    ]) expect(routable(member('a', 'a', over)), JSON.stringify(over)).to.equal(false);
    expect(networkRoutes([member('a', 'a', { nodeId: 'n3' })], reach, undefined)).to.deep.equal([]);
  });

  it('keeps a member asleep in the routes (a join through the proxy wakes it), not one stopped or leaving', () => {
    const asleep = { runtimeState: 'STOPPED' as const, startedInNetwork: false, sleeping: true };
    expect(routable(member('a', 'a', asleep))).to.equal(true);
    expect(routable(member('a', 'a', { ...asleep, sleeping: false }))).to.equal(false);
    expect(routable(member('a', 'a', { ...asleep, desiredInNetwork: false }))).to.equal(false);
    expect(routable(member('a', 'a', { ...asleep, desiredState: 'STOPPED' }))).to.equal(false);
  });

  it('orders the lobby first, then by name and id, whatever order the servers come in', () => {
    const servers = [member('3', 'zulu'), member('2', 'alpha', { nodeId: 'n2', gamePort: 25570 }), member('1', 'alpha'), member('4', 'mike')];
    const names = (lobby?: string) => networkRoutes(servers, reach, lobby).map((r) => r.serverId);
    expect(names()).to.deep.equal(['1', '2', '4', '3']);
    expect(names('4')).to.deep.equal(['4', '1', '2', '3']);
    expect(names([...servers].reverse()[0].serverId)).to.deep.equal(['4', '1', '2', '3']);
    expect(networkRoutes(servers, reach, undefined)[1]).to.deep.equal({ serverId: '2', name: 'alpha', address: 'node-2.example', port: 25570 });
  });

  it('a lobby that is leaving the network is no longer tried first', () => {
    const servers = [member('1', 'alpha'), member('2', 'bravo', { desiredInNetwork: false })];
    expect(networkRoutes(servers, reach, '2').map((r) => r.serverId)).to.deep.equal(['1', '2']);
  });

  it('RESTART_PENDING while a live process was started with another membership than the desired one', () => {
    const s = { desiredState: 'RUNNING' as const, desiredInNetwork: true, runtimeState: 'RUNNING' as const, startedInNetwork: false };
    expect(restartPending(s)).to.equal(true);
    expect(restartPending({ ...s, startedInNetwork: true })).to.equal(false);
    expect(restartPending({ ...s, runtimeState: 'STOPPED' })).to.equal(false);
    expect(restartPending({ ...s, desiredInNetwork: false, startedInNetwork: true, runtimeState: 'STARTING' })).to.equal(true);
    expect(restartPending({ ...s, desiredState: 'DELETED' })).to.equal(false);
  });
});
