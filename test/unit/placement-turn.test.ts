import { expect } from 'chai';
import { PlacementTurn } from '../../src/controller/services/servers/placement-turn.js';
import type { ServerRoom } from '../../src/controller/services/servers/room.js';

/** A deferred step: `work` that runs until the test lets it end, recording when it began. */
function step(log: string[], name: string) {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  const work = async () => {
    log.push(`${name} begins`);
    await ended;
    log.push(`${name} ends`);
    return name;
  };
  return { work, end };
}

const turns = () => new PlacementTurn({} as ServerRoom);
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('PlacementTurn', () => {
  it('runs decisions on different Nodes side by side, and one Node\'s one at a time', async () => {
    const turn = turns();
    const log: string[] = [];
    const a1 = step(log, 'a1');
    const b = step(log, 'b');
    const a2 = step(log, 'a2');
    const done = [turn.runOnNode('a', a1.work), turn.runOnNode('b', b.work), turn.runOnNode('a', a2.work)];
    await settle();
    expect(log).to.deep.equal(['a1 begins', 'b begins']);
    a1.end();
    await settle();
    expect(log).to.include('a2 begins');
    b.end();
    a2.end();
    expect(await Promise.all(done)).to.deep.equal(['a1', 'b', 'a2']);
  });

  it('starts a fleet-wide decision after the Node turns asked for before it, and those asked for after it after it', async () => {
    const turn = turns();
    const log: string[] = [];
    const before = step(log, 'before');
    const fleet = step(log, 'fleet');
    const after = step(log, 'after');
    const done = [turn.runOnNode('a', before.work), turn.run(fleet.work), turn.runOnNode('b', after.work)];
    await settle();
    expect(log).to.deep.equal(['before begins']);
    before.end();
    await settle();
    expect(log).to.deep.equal(['before begins', 'before ends', 'fleet begins']);
    fleet.end();
    await settle();
    expect(log.slice(-2)).to.deep.equal(['fleet ends', 'after begins']);
    after.end();
    await Promise.all(done);
  });

  it('runs fleet-wide decisions one at a time, and goes on after one fails', async () => {
    const turn = turns();
    const log: string[] = [];
    const second = step(log, 'second');
    const failed = turn.run(async () => {
      log.push('first');
      throw new Error('refused');
    });
    const done = turn.run(second.work);
    const onNode = turn.runOnNode('a', async () => log.push('on node'));
    expect(await failed.then(() => 'resolved', (err: unknown) => (err as Error).message)).to.equal('refused');
    await settle();
    expect(log).to.deep.equal(['first', 'second begins']);
    second.end();
    await Promise.all([done, onNode]);
    expect(log).to.deep.equal(['first', 'second begins', 'second ends', 'on node']);
  });
});
