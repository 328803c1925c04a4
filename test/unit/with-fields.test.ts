import { expect } from 'chai';
import { setFlagsFromString } from 'node:v8';
import { runInThisContext } from 'node:vm';
import { observedOf, type ServerReport } from '../../src/controller/domain/server-report.js';
import { withFields } from '../../src/shared/with-fields.js';

// V8's own answer to "do these two objects share a hidden class?", compiled after the flag allows it.
setFlagsFromString('--allow-natives-syntax');
const sameMap = runInThisContext('(a, b) => %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
const hiddenClasses = (objects: object[]) => objects.reduce<object[]>((kinds, o) => (kinds.some((k) => sameMap(k, o)) ? kinds : [...kinds, o]), []).length;

const report = (i: number): ServerReport => ({
  serverId: `s${i}`, observedGeneration: i % 7, runtimeState: 'STOPPED', installed: true, removed: false, restarting: false, startedInNetwork: false,
  usage: { cpuMillis: i, memoryBytes: 0, diskBytes: 4096 }, conditions: [],
});

describe('objects made by the thousand share their hidden class', () => {
  it('a spread that adds a key gives each object a class of its own on this V8; withFields does not', () => {
    const bases = Array.from({ length: 200 }, (_, i) => ({ a: i, b: `${i}` }));
    const spread = (base: { a: number; b: string }) => ({ ...base, c: true });
    // The reason withFields exists: if a later Node shares these classes, this fails and withFields can go.
    expect(hiddenClasses(bases.map(spread))).to.be.greaterThan(100);
    expect(hiddenClasses(bases.map((base) => withFields(base, { c: true })))).to.equal(1);
    expect(withFields({ a: 1, b: 2 }, { b: 3, c: 4 })).to.deep.equal({ a: 1, b: 3, c: 4 });
  });

  it('observed statuses made from reports (one per server, kept by the Controller) share one', () => {
    const observed = Array.from({ length: 200 }, (_, i) => observedOf(report(i), '2030-01-01T00:00:00.000Z'));
    expect(hiddenClasses(observed)).to.equal(1);
    expect(Object.keys(observed[0])).to.deep.equal(['observedGeneration', 'runtimeState', 'installed', 'restarting', 'startedInNetwork', 'usage', 'conditions', 'reportedAt']);
  });
});
