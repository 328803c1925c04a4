import { expect } from 'chai';
import { appendFile, readFile } from 'node:fs/promises';
import { describeStoreContract, ids, thingIndexes, type Thing } from '../support/store-contract.js';

describeStoreContract('crash safety (a half-written last line)', (contract) => {
  const { c, clock } = contract;
  const files = c.files;
  // Only the embedded store has files of its own to tear.
  if (!files) return;
  let seq = 0;

  it('cuts a torn tail off a collection file and the audit file; everything before it is intact', async () => {
    const name = `crash${seq++}`;
    const col = await contract.adapter.openCollection<Thing>(name, thingIndexes);
    for (let i = 0; i < 5; i++) await col.insert({ _id: `k${i}`, name: `K${i}`, nameKey: `k${i}`, n: i });
    await col.update({ _id: 'k0' }, { note: 'updated' });
    const log = await contract.adapter.openAuditLog();
    const last = await log.append({ actorKind: 'SYSTEM', action: 'system.note', targetKind: 'controller', targetId: 'before-crash', outcome: 'SUCCESS', details: {} });
    await contract.adapter.close();

    await appendFile(files.collection(name), '{"_id":"k9","name":"K9","nameK');
    await appendFile(files.audit(), '{"id":' + (last.id + 1) + ',"occurredAt":"2030-');

    files.repairs.length = 0;
    contract.adapter = await c.open(clock);
    const again = await contract.adapter.openCollection<Thing>(name, thingIndexes);
    expect(ids(await again.find({}))).to.deep.equal(['k0', 'k1', 'k2', 'k3', 'k4']);
    expect(files.repairs).to.deep.include({ file: files.collection(name), dropped: 'a half-written last record (30 bytes)' });
    expect((await again.findById('k0'))!.note).to.equal('updated');
    expect(await again.findById('k9')).to.equal(null);
    expect(await readFile(files.collection(name), 'utf8')).not.to.include('"k9"');
    const log2 = await contract.adapter.openAuditLog();
    expect((await log2.search({ limit: 1 }))[0]).to.deep.equal(last);
    expect(files.repairs.map((r) => r.file)).to.include(files.audit());
    expect(files.repairs.find((r) => r.file === files.audit())?.dropped).to.match(/^a half-written last event \(\d+ bytes\)$/);
    const next = await log2.append({ actorKind: 'SYSTEM', action: 'system.note', targetKind: 'controller', targetId: 'after-crash', outcome: 'SUCCESS', details: {} });
    expect(next.id).to.equal(last.id + 1);
    expect((await readFile(files.audit(), 'utf8')).endsWith('\n')).to.equal(true);
    // Writes after recovery land on their own line and survive another reopen.
    await again.insert({ _id: 'k5', name: 'K5', nameKey: 'k5' });
    await contract.adapter.close();
    contract.adapter = await c.open(clock);
    const third = await contract.adapter.openCollection<Thing>(name, thingIndexes);
    expect(await third.count({})).to.equal(6);
    expect((await (await contract.adapter.openAuditLog()).search({ limit: 1 }))[0]).to.deep.equal(next);
  });

  it('skips an unreadable audit line in the middle, names it, and keeps every other event', async () => {
    await contract.adapter.close();
    const before = (await Promise.all(files.auditSegments().map((f) => readFile(f, 'utf8')))).join('').split('\n').filter(Boolean).length;
    const activeLines = (await readFile(files.audit(), 'utf8')).split('\n').filter(Boolean).length;
    await appendFile(files.audit(), '{"id": not json}\n');
    files.repairs.length = 0;
    contract.adapter = await c.open(clock);
    const log = await contract.adapter.openAuditLog();
    expect(files.repairs).to.deep.equal([{ file: files.audit(), dropped: `1 unreadable event line(s): ${activeLines + 1}` }]);
    const appended = await log.append({ actorKind: 'SYSTEM', action: 'system.note', targetKind: 'controller', targetId: 'after-bad-line', outcome: 'SUCCESS', details: {} });
    expect((await log.search({ limit: 1 }))[0]).to.deep.equal(appended);
    expect((await log.search({ limit: 1000 })).length).to.equal(before + 1);
  });

  it('opens a file that is only a torn line as empty', async () => {
    const name = `torn-only${seq++}`;
    await appendFile(files.collection(name), '{"_id":"x","na');
    const col = await contract.adapter.openCollection<Thing>(name, thingIndexes);
    expect(await col.count({})).to.equal(0);
  });
});
