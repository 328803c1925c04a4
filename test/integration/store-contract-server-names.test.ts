import { expect } from 'chai';
import { isDomainError } from '../../src/controller/core/errors.js';
import { serverNameKey } from '../../src/controller/domain/server-name.js';
import { defaultRestartPolicy, emptyObserved } from '../../src/controller/domain/server-spec.js';
import { ServerNames } from '../../src/controller/services/servers/server-names.js';
import { DuplicateKeyError } from '../../src/controller/store/collection.js';
import type { ServerDoc } from '../../src/controller/store/records.js';
import { openRepositories } from '../../src/controller/store/repositories.js';
import { describeStoreContract } from '../support/store-contract.js';

const server = (_id: string, name: string, extra: Partial<ServerDoc> = {}): ServerDoc => ({
  _id, name, teamId: 't1', kind: 'GAME_SERVER', generation: 1, phase: 'READY', observed: emptyObserved(),
  desired: {
    state: 'STOPPED', software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 100, memoryBytes: 2 ** 26 },
    inNetwork: false, restartPolicy: defaultRestartPolicy, acknowledgedConditions: [], restartNonce: 0,
  },
  createdAt: '2030-01-01T00:00:00.000Z', updatedAt: '2030-01-01T00:00:00.000Z', ...extra,
});

describeStoreContract('server names', (contract) => {
  it('a store whose servers share a name (written before names were unique) still opens; new names are unique per team, ignoring case', async () => {
    // The servers collection as versions before the rule kept it: no nameKey, no index on it.
    const before = await contract.adapter.openCollection<ServerDoc>('servers', [{ field: 'teamId' }, { field: 'nodeId' }]);
    await before.insert(server('s1', 'Survival'));
    await before.insert(server('s2', 'survival'));
    await contract.adapter.close();
    contract.adapter = await contract.c.open(contract.clock);
    const repos = await openRepositories(contract.adapter);
    expect((await repos.servers.find({ teamId: 't1' })).map((s) => s.name).sort()).to.deep.equal(['Survival', 'survival']);

    const names = new ServerNames(repos);
    const refused = await names.vacant('t1', 'SURVIVAL').then(() => undefined, (e: unknown) => e);
    expect(isDomainError(refused) && refused.code).to.equal('conflict');
    expect(await names.vacant('t2', 'SURVIVAL')).to.equal(serverNameKey('t2', 'SURVIVAL'));

    await repos.servers.insert(server('s3', 'Lobby', { nameKey: await names.vacant('t1', 'Lobby') }));
    const dup = await repos.servers.insert(server('s4', 'LOBBY', { nameKey: serverNameKey('t1', 'LOBBY') })).then(() => undefined, (e: unknown) => e);
    expect(dup).to.be.instanceOf(DuplicateKeyError).and.have.property('field', 'nameKey');
    expect(isDomainError(ServerNames.refusal(dup, 'LOBBY'))).to.equal(true);
    await repos.servers.insert(server('s5', 'lobby', { teamId: 't2', nameKey: serverNameKey('t2', 'lobby') }));
  });
});
