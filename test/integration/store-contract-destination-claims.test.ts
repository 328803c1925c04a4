import { expect } from 'chai';
import { uuidV7Ids } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { DestinationClaims } from '../../src/controller/services/backups/destination-claims.js';
import type { Collection } from '../../src/controller/store/collection.js';
import type { DestinationClaimDoc } from '../../src/controller/store/destination-claim-records.js';
import { openRepositories, type Repositories } from '../../src/controller/store/repositories.js';
import { describeStoreContract } from '../support/store-contract.js';
import { waitFor } from '../support/wait-for.js';

/** A promise and the function that settles it: a backup or a collection held where the test wants it. */
const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
};

describeStoreContract('claims on a shared backup destination, between Controllers', (contract) => {
  let repos: Repositories;
  const alive = new Set(['ctl-a', 'ctl-b', 'ctl-c']);
  const timings = { writerWaitMs: 1500, collectorWaitMs: 1500, pollMs: 20 };
  /** Every claim recorded, as `<kind> <controllerId>`: a claim taken back at once is seen here, not in the store. */
  const recorded: string[] = [];
  const recording = (claims: Collection<DestinationClaimDoc>) => new Proxy(claims, {
    get(target, key) {
      if (key === 'insert') {
        return (doc: DestinationClaimDoc) => {
          recorded.push(`${doc.kind} ${doc.controllerId}`);
          return target.insert(doc);
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const claimsOf = (controllerId: string) => new DestinationClaims({
    claims: recording(repos.destinationClaims), controllerId, alive: () => Promise.resolve(alive), now: () => new Date().toISOString(), newId: () => uuidV7Ids.next(), logger: silentLogger,
  }, timings);
  let a: DestinationClaims;
  let b: DestinationClaims;
  let c: DestinationClaims;
  let destinationId: string;
  const left = () => repos.destinationClaims.count({ destinationId });

  before(async () => {
    repos = await openRepositories(contract.adapter);
    a = claimsOf('ctl-a');
    b = claimsOf('ctl-b');
    c = claimsOf('ctl-c');
  });
  beforeEach(() => {
    destinationId = uuidV7Ids.next();
    recorded.length = 0;
  });

  it('a collection waits for another Controller\'s backup into the destination, and runs once it ended', async () => {
    const events: string[] = [];
    const backupEnds = gate();
    const backupStarted = gate();
    const backup = a.writing(destinationId, async () => {
      events.push('backup started');
      backupStarted.open();
      await backupEnds.opened;
      events.push('backup ended');
    });
    await backupStarted.opened;
    const collection = b.collecting(destinationId, () => {
      events.push('collected');
      return Promise.resolve(3);
    });
    await waitFor(async () => (await repos.destinationClaims.count({ destinationId, kind: 'COLLECT' })) === 1, { what: 'the collection\'s claim' });
    expect(events).to.deep.equal(['backup started']);
    backupEnds.open();
    expect(await collection).to.equal(3);
    await backup;
    expect(events).to.deep.equal(['backup started', 'backup ended', 'collected']);
    expect(await left()).to.equal(0);
  });

  it('a backup waits while another Controller collects the destination, and writes once the collection ended', async () => {
    const events: string[] = [];
    const collectionEnds = gate();
    const collectionStarted = gate();
    const collection = a.collecting(destinationId, async () => {
      events.push('collecting');
      collectionStarted.open();
      await collectionEnds.opened;
      events.push('collected');
    });
    await collectionStarted.opened;
    const backup = b.writing(destinationId, () => {
      events.push('backup');
      return Promise.resolve('stored');
    });
    // Claimed, saw the collection, stepped back, and claimed again: it is waiting.
    await waitFor(() => recorded.filter((r) => r === 'WRITE ctl-b').length >= 2, { what: 'the backup to look twice' });
    expect(events).to.deep.equal(['collecting']);
    collectionEnds.open();
    await collection;
    expect(await backup).to.equal('stored');
    expect(events).to.deep.equal(['collecting', 'collected', 'backup']);
    expect(await left()).to.equal(0);
  });

  // Within one Controller its DestinationLocks keep them apart; the claims are for the others.
  it('backups and collections begun at the same moment on three Controllers never overlap', async () => {
    let writing = 0;
    let collecting = 0;
    const overlaps: string[] = [];
    const held = async (kind: 'write' | 'collect') => {
      if (kind === 'write') writing++;
      else collecting++;
      if (writing > 0 && collecting > 0) overlaps.push(kind);
      await new Promise((resolve) => setTimeout(resolve, 2));
      if (kind === 'write') writing--;
      else collecting--;
    };
    for (let round = 0; round < 15; round++) {
      await Promise.all([a.writing(destinationId, () => held('write')), b.collecting(destinationId, () => held('collect')), c.writing(destinationId, () => held('write'))]);
    }
    expect(overlaps).to.deep.equal([]);
    expect(await left()).to.equal(0);
  });

  it('holds nobody back with the claims of a Controller no longer alive, and removes them', async () => {
    await repos.destinationClaims.insert({ _id: uuidV7Ids.next(), destinationId, kind: 'WRITE', controllerId: 'ctl-gone', since: new Date().toISOString() });
    await repos.destinationClaims.insert({ _id: uuidV7Ids.next(), destinationId, kind: 'COLLECT', controllerId: 'ctl-gone', since: new Date().toISOString() });
    expect(await a.collecting(destinationId, () => Promise.resolve('collected'))).to.equal('collected');
    expect(await b.writing(destinationId, () => Promise.resolve('stored'))).to.equal('stored');
    expect(await left()).to.equal(0);
  });

  it('gives a collection up at its deadline while another Controller still writes: nothing collected, its claim gone', async () => {
    const backupEnds = gate();
    const backupStarted = gate();
    const backup = a.writing(destinationId, async () => {
      backupStarted.open();
      await backupEnds.opened;
    });
    await backupStarted.opened;
    let ran = false;
    const started = Date.now();
    expect(await b.collecting(destinationId, () => Promise.resolve((ran = true)))).to.equal(undefined);
    expect(Date.now() - started).to.be.at.least(timings.collectorWaitMs);
    expect(ran).to.equal(false);
    expect(await repos.destinationClaims.count({ destinationId, kind: 'COLLECT' })).to.equal(0);
    backupEnds.open();
    await backup;
    expect(await left()).to.equal(0);
  });

  it('fails a backup that another Controller\'s collection keeps waiting past its deadline, naming that Controller', async () => {
    const collectionEnds = gate();
    const collectionStarted = gate();
    const collection = a.collecting(destinationId, async () => {
      collectionStarted.open();
      await collectionEnds.opened;
    });
    await collectionStarted.opened;
    const failure = await b.writing(destinationId, () => Promise.resolve('stored')).then(() => undefined, (e: unknown) => e);
    expect(failure).to.be.instanceOf(Error);
    expect((failure as Error).message).to.match(/another Controller \(ctl-a\) has been collecting the destination's unreferenced blobs since .*; the backup waited 2 s for it/);
    expect(await repos.destinationClaims.count({ destinationId, kind: 'WRITE' })).to.equal(0);
    collectionEnds.open();
    await collection;
    expect(await left()).to.equal(0);
  });
});
