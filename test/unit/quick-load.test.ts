import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NedbCollection } from '../../src/controller/store/embedded/nedb-collection.js';
import { tempDirPerTest } from '../support/temp-dir.js';

interface Doc { _id: string; name: string; nodeId?: string; at?: unknown }

describe('loading an embedded store file', () => {
  const dir = tempDirPerTest('cairn-quick-load-');

  const open = (file: string) => NedbCollection.open<Doc>(file, [{ field: 'nodeId' }], () => undefined);

  it('keeps nedb\'s rules: the last line of an id wins, $$deleted removes, $$date lines revive, declared indexes answer', async () => {
    const file = join(dir(), 'servers.db');
    const lines = [
      { _id: 'a', name: 'first', nodeId: 'n1' },
      { _id: 'b', name: 'gone', nodeId: 'n1' },
      { $$indexCreated: { fieldName: 'nodeId', unique: false, sparse: false } },
      { _id: 'a', name: 'second', nodeId: 'n2' },
      { _id: 'b', $$deleted: true },
      { _id: 'c', name: 'dated', at: { $$date: 0 } },
    ];
    await writeFile(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const collection = await open(file);
    expect((await collection.find({}, { sort: { _id: 1 } })).map((d) => d.name)).to.deep.equal(['second', 'dated']);
    expect((await collection.find({ nodeId: 'n2' })).map((d) => d._id)).to.deep.equal(['a']);
    expect((await collection.findById('c'))!.at).to.be.instanceOf(Date);
    expect(await collection.find({ nodeId: 'n1' })).to.deep.equal([]);
  });

  it('leaves the file as it was (compactions rewrite it), and writes after a load append to it', async () => {
    const file = join(dir(), 'servers.db');
    const text = [{ _id: 'a', name: 'one' }, { _id: 'a', name: 'two' }].map((l) => JSON.stringify(l)).join('\n') + '\n';
    await writeFile(file, text);
    const collection = await open(file);
    expect((await readFile(file, 'utf8')).startsWith(text)).to.equal(true);
    await collection.insert({ _id: 'b', name: 'three' });
    await collection.compact();
    const reopened = await open(file);
    expect((await reopened.find({}, { sort: { _id: 1 } })).map((d) => d.name)).to.deep.equal(['two', 'three']);
    expect((await readFile(file, 'utf8')).split('\n').filter((l) => l.includes('"_id"'))).to.have.length(2);
  });

  it('reads CRLF lines, lines longer than a read and characters split between reads', async () => {
    const file = join(dir(), 'servers.db');
    const long = { _id: 'long', name: 'é'.repeat(200_000), nodeId: 'n1' };
    await writeFile(file, [JSON.stringify({ _id: 'a', name: 'crlf', nodeId: 'n1' }), JSON.stringify(long), JSON.stringify({ _id: 'z', name: '日本', nodeId: 'n2' })].join('\r\n') + '\r\n');
    const collection = await open(file);
    expect((await collection.find({}, { sort: { _id: 1 } })).map((d) => d.name)).to.deep.equal(['crlf', long.name, '日本']);
    expect((await collection.find({ nodeId: 'n1' })).map((d) => d._id).sort()).to.deep.equal(['a', 'long']);
  });

  it('refuses a file with more corrupt lines than nedb tolerates, and skips a few', async () => {
    const corrupt = join(dir(), 'corrupt.db');
    await writeFile(corrupt, ['{"_id":"a","name":"ok"}', 'not json', '{broken'].join('\n') + '\n');
    const refused = await open(corrupt).then(() => undefined, (e: unknown) => e as Error);
    expect(refused?.message).to.match(/of the data file is corrupt/);

    const mostlyFine = join(dir(), 'fine.db');
    const good = Array.from({ length: 20 }, (_, i) => JSON.stringify({ _id: `s${i}`, name: `n${i}` }));
    await writeFile(mostlyFine, [...good, 'not json'].join('\n') + '\n');
    expect(await (await open(mostlyFine)).count({})).to.equal(20);
  });
});

describe('writes under a crowded index key', () => {
  const dir = tempDirPerTest('cairn-index-removal-');

  it('updates, replaces and deletes keep the index right, many documents under one key or the last one', async () => {
    const collection = await NedbCollection.open<Doc>(join(dir(), 'servers.db'), [{ field: 'nodeId' }], () => undefined);
    for (let i = 0; i < 500; i++) await collection.insert({ _id: `s${String(i).padStart(3, '0')}`, name: `n${i}`, nodeId: 'crowded' });
    await collection.insert({ _id: 'lonely', name: 'alone', nodeId: 'quiet' });
    await collection.update({ _id: 's000' }, { name: 'renamed' });
    await collection.replace({ _id: 's001' }, { _id: 's001', name: 'moved', nodeId: 'quiet' });
    await collection.delete({ _id: 's002' });
    await collection.update({ _id: 'lonely' }, { nodeId: 'elsewhere' });
    const crowded = await collection.find({ nodeId: 'crowded' });
    expect(crowded).to.have.length(498);
    expect(crowded.find((d) => d._id === 's000')?.name).to.equal('renamed');
    expect(crowded.map((d) => d._id)).to.not.include.members(['s001', 's002']);
    expect((await collection.find({ nodeId: 'quiet' })).map((d) => d._id)).to.deep.equal(['s001']);
    expect((await collection.find({ nodeId: 'elsewhere' })).map((d) => d._id)).to.deep.equal(['lonely']);
    expect(await collection.count({ nodeId: 'crowded' })).to.equal(498);
  });

  it('a write that keeps the key swaps the document in place, and one a unique index refuses leaves the index as it was', async () => {
    const collection = await NedbCollection.open<Doc & { tag?: string }>(join(dir(), 'servers.db'), [{ field: 'nodeId' }, { field: 'tag', unique: true, sparse: true }], () => undefined);
    for (let i = 0; i < 50; i++) await collection.insert({ _id: `s${i}`, name: `n${i}`, nodeId: 'crowded' });
    await collection.insert({ _id: 'tagged', name: 'tagged', nodeId: 'crowded', tag: 'taken' });
    await collection.replace({ _id: 's7' }, { _id: 's7', name: 'seven', nodeId: 'crowded' });
    let refused: unknown;
    await collection.replace({ _id: 's8' }, { _id: 's8', name: 'clash', nodeId: 'crowded', tag: 'taken' }).catch((e: unknown) => (refused = e));
    expect(refused).to.be.instanceOf(Error);
    const crowded = await collection.find({ nodeId: 'crowded' });
    expect(crowded).to.have.length(51);
    expect(new Set(crowded.map((d) => d._id)).size).to.equal(51);
    expect(crowded.find((d) => d._id === 's7')?.name).to.equal('seven');
    expect(crowded.find((d) => d._id === 's8')?.name).to.equal('n8');
  });

  it('documents loaded under a crowded key keep the index right through writes, also once a removal shifted the positions remembered', async () => {
    const file = join(dir(), 'servers.db');
    const first = await NedbCollection.open<Doc>(file, [{ field: 'nodeId' }], () => undefined);
    for (let i = 0; i < 300; i++) await first.insert({ _id: `s${String(i).padStart(3, '0')}`, name: `n${i}`, nodeId: 'crowded' });
    first.stopCompaction();
    const collection = await NedbCollection.open<Doc>(file, [{ field: 'nodeId' }], () => undefined);
    await collection.update({ _id: 's010' }, { name: 'ten' });
    // Every document after s005 moves one place down: their remembered positions are stale now.
    await collection.delete({ _id: 's005' });
    for (const id of ['s006', 's200', 's299', 's010']) await collection.update({ _id: id }, { name: `renamed ${id}` });
    await collection.replace({ _id: 's100' }, { _id: 's100', name: 'moved', nodeId: 'quiet' });
    const crowded = await collection.find({ nodeId: 'crowded' });
    expect(crowded).to.have.length(298);
    expect(new Set(crowded.map((d) => d._id)).size).to.equal(298);
    expect(crowded.map((d) => d._id)).to.not.include.members(['s005', 's100']);
    expect(crowded.filter((d) => d.name.startsWith('renamed')).map((d) => d._id).sort()).to.deep.equal(['s006', 's010', 's200', 's299']);
    expect((await collection.find({ nodeId: 'quiet' })).map((d) => d._id)).to.deep.equal(['s100']);
    collection.stopCompaction();
  });
});
