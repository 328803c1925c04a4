import { expect } from 'chai';
import { fileChangesEnded, FileChangesUnderWay, refuseWhileFilesInMotion } from '../../src/controller/services/files/file-changes.js';
import { DomainError } from '../../src/controller/core/errors.js';
import type { ServerDoc } from '../../src/controller/store/records.js';

const doc = (phase: ServerDoc['phase'], workflow?: ServerDoc['workflow']) => ({ phase, ...(workflow ? { workflow } : {}) }) as ServerDoc;

describe('file changes while a workflow moves or replaces the files', () => {
  it('refuses them with phase_busy in MIGRATING, RESTORING, UPDATING and DELETING, naming the phase', () => {
    for (const phase of ['MIGRATING', 'RESTORING', 'UPDATING', 'DELETING'] as const) {
      let refused: unknown;
      try {
        refuseWhileFilesInMotion(doc(phase));
      } catch (e) {
        refused = e;
      }
      expect(refused, phase).to.be.instanceOf(DomainError);
      expect((refused as DomainError).code).to.equal('phase_busy');
      expect((refused as DomainError).message).to.include(`The server is ${phase}:`);
    }
  });

  it('names the workflow and its step when there is one', () => {
    const workflow = { kind: 'RESTORE', step: 'staging', startedAt: '2026-11-27T00:00:00.000Z' } as unknown as ServerDoc['workflow'];
    expect(() => refuseWhileFilesInMotion(doc('RESTORING', workflow))).to.throw(DomainError, 'RESTORING (restore: staging)');
  });

  it('takes them in READY, PROVISIONING and FAILED (an operator mends a failed server\'s files)', () => {
    for (const phase of ['READY', 'PROVISIONING', 'FAILED'] as const) expect(() => refuseWhileFilesInMotion(doc(phase)), phase).to.not.throw();
  });

  it('settles once every change of the server under way has ended, failed ones included; other servers do not count', async () => {
    const changes = new FileChangesUnderWay();
    const ends: (() => void)[] = [];
    const held = () => new Promise<void>((resolve) => ends.push(resolve));
    const first = changes.run('a', held);
    const second = changes.run('a', () => held().then(() => { throw new Error('the Agent refused'); }));
    void changes.run('b', held);
    let settled = false;
    const waited = changes.settled('a').then(() => (settled = true));
    await Promise.resolve();
    ends[0]();
    await first;
    expect(settled, 'one change of a is still under way').to.equal(false);
    ends[1]();
    await second.catch(() => undefined);
    await waited;
    expect(settled).to.equal(true);
    let idle = false;
    await changes.settled('c').then(() => (idle = true));
    expect(idle).to.equal(true);
    ends[2]();
  });

  it('a workflow waits for changes under way for a while, then fails saying one still was', async () => {
    const changes = new FileChangesUnderWay();
    let end!: () => void;
    const change = changes.run('s', () => new Promise<void>((resolve) => (end = resolve)));
    let refused: unknown;
    await fileChangesEnded(changes, 's', 20).catch((e: unknown) => (refused = e));
    expect(String(refused)).to.include('a file change through the API was still under way after 0 s');
    const ended = fileChangesEnded(changes, 's', 5_000);
    end();
    await change;
    await ended;
  });
});
