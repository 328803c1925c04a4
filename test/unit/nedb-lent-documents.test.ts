import { expect } from 'chai';
import { join } from 'node:path';
import { NedbCollection } from '../../src/controller/store/embedded/nedb-collection.js';
import { LentRecords } from '../../src/controller/services/servers/observed-memo.js';
import type { ServerDoc } from '../../src/controller/store/records.js';
import { tempDirPerTest } from '../support/temp-dir.js';

interface Doc { _id: string; name: string; nodeId?: string }

describe('an embedded collection lends its own documents by id', () => {
  const dir = tempDirPerTest('cairn-lent-documents-');

  it('answers the document as last written, the same object until a write replaces it, and nothing once deleted', async () => {
    const collection = await NedbCollection.open<Doc>(join(dir(), 'servers.db'), [{ field: 'nodeId' }], () => undefined);
    await collection.insert({ _id: 's1', name: 'one', nodeId: 'n1' });
    const first = collection.cachedById('s1');
    expect(first).to.deep.equal({ _id: 's1', name: 'one', nodeId: 'n1' });
    expect(collection.cachedById('s1')).to.equal(first);
    await collection.replace({ _id: 's1' }, { _id: 's1', name: 'renamed', nodeId: 'n2' });
    expect(collection.cachedById('s1')).to.deep.equal({ _id: 's1', name: 'renamed', nodeId: 'n2' });
    // The lent object is nedb's: the earlier one is left as it was, not changed in place.
    expect(first?.name).to.equal('one');
    await collection.delete({ _id: 's1' });
    expect(collection.cachedById('s1')).to.equal(undefined);
    expect(collection.cachedById('never')).to.equal(undefined);
    collection.stopCompaction();
  });

  it('is what reports are checked against: a server\'s Node, phase and observed status as stored', async () => {
    const collection = await NedbCollection.open<ServerDoc>(join(dir(), 'servers.db'), [{ field: 'nodeId' }], () => undefined);
    const observed = { observedGeneration: 1, runtimeState: 'STOPPED', installed: true, restarting: false, startedInNetwork: false, usage: { cpuMillis: 0, memoryBytes: 0, diskBytes: 5 }, conditions: [] } as unknown as ServerDoc['observed'];
    await collection.insert({ _id: 's1', name: 'one', teamId: 't', nodeId: 'n1', phase: 'RUNNING', observed } as unknown as ServerDoc);
    const known = new LentRecords((id) => collection.cachedById(id));
    expect(known.get('s1')).to.include({ nodeId: 'n1', phase: 'RUNNING' });
    expect(known.get('s1')?.observed.usage.diskBytes).to.equal(5);
    await collection.update({ _id: 's1' }, { observed: { ...observed, usage: { ...observed.usage, diskBytes: 9 } } });
    expect(known.get('s1')?.observed.usage.diskBytes).to.equal(9);
    expect(known.get('gone')).to.equal(undefined);
    collection.stopCompaction();
  });
});
