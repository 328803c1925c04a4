import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { HolderRoutes, PeerController, PeerHttp } from '../../src/controller/link/peer-http.js';
import type { ServiceDeps } from '../../src/controller/services/deps.js';
import { WorkflowHandoff } from '../../src/controller/services/workflows/workflow-handoff.js';
import { HolderHandoff } from '../../src/controller/services/leases/holder-handoff.js';
import { WorkflowOutcomes, type WorkflowResult } from '../../src/controller/services/workflows/workflow-outcomes.js';
import { WorkflowRunner } from '../../src/controller/services/workflows/workflow-runner.js';
import type { ServerDoc } from '../../src/controller/store/records.js';
import { silentLogger } from '../../src/shared/logger.js';

const startedAt = '2026-11-30T12:00:00.000Z';
const migrating = (id: string, nodeId: string): ServerDoc => ({ _id: id, nodeId, workflow: { kind: 'MIGRATE', step: 'reserving', startedAt } } as unknown as ServerDoc);
const holder: PeerController = { id: 'controller-a', httpAddress: '127.0.0.1:1' };

/** A holder that answers the handoff with `status` (or cannot be reached: undefined), and records what it was asked. */
function peersAnswering(status: number | undefined, asked: unknown[]): PeerHttp {
  return {
    post: (_peer: PeerController, path: string, _purpose: string, payload: unknown) => {
      asked.push({ path, payload });
      if (status === undefined) return Promise.reject(new Error('connect ECONNREFUSED'));
      return Promise.resolve(Object.assign(Readable.from([]), { statusCode: status }) as unknown as IncomingMessage);
    },
  } as unknown as PeerHttp;
}

/**
 * A workflow begun on a Controller that does not drive the server's Node is run by the one that
 * does; the beginning Controller's end of it is when the record says so.
 */
describe('a workflow handed to the holder of its Node', () => {
  let records: Map<string, ServerDoc>;
  let ranHere: string[];
  let forgotten: string[];
  let runner: WorkflowRunner;
  /** Holds every run here until released, so a run is still going when asked about. */
  let gate: Promise<void>;
  let release: () => void;

  function build(status: number | undefined, asked: unknown[], drives: (nodeId: string) => boolean) {
    const routes: HolderRoutes = { holderOf: (nodeId) => Promise.resolve(drives(nodeId) ? undefined : holder), forget: (nodeId) => void forgotten.push(nodeId) };
    const read = (id: string) => Promise.resolve(records.get(id) ?? null);
    const deps = { logger: silentLogger, repos: { servers: { findById: read, find: () => Promise.resolve([...records.values()]) } } } as unknown as ServiceDeps;
    runner = new WorkflowRunner(deps, (_id, work) => work(), new WorkflowOutcomes());
    runner.define({
      kind: 'MIGRATE',
      open: (doc) => ({
        forward: async (): Promise<WorkflowResult> => {
          ranHere.push(doc._id);
          await gate;
          return 'succeeded';
        },
        resume: (): Promise<WorkflowResult> => Promise.resolve('rolled_back'),
      }),
    });
    runner.handOffWith(new WorkflowHandoff(new HolderHandoff(routes, peersAnswering(status, asked), silentLogger, drives), read));
  }

  beforeEach(() => {
    records = new Map();
    ranHere = [];
    forgotten = [];
    gate = Promise.resolve();
  });
  afterEach(() => runner.stop());

  it('taken by the holder: not run here, and ends once the record names the workflow no more', async () => {
    const asked: unknown[] = [];
    build(202, asked, () => false);
    records.set('s1', migrating('s1', 'node-a'));
    const done = runner.launch(records.get('s1')!, 'forward');
    let ended = false;
    void done.then(() => {
      ended = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).to.deep.equal([{ path: '/internal/v1/workflow-run', payload: { serverId: 's1' } }]);
    expect(runner.runOf('s1'), 'a run handed off is not this Controller\'s: gaining the Node later resumes it').to.equal(undefined);
    expect(ended).to.equal(false);
    records.set('s1', { ...records.get('s1')!, workflow: undefined });
    expect(await done).to.equal('elsewhere');
    expect(ranHere).to.deep.equal([]);
  });

  it('refused by the holder (409: it no longer drives the Node) or unreachable: run here, and the route looked up again', async () => {
    for (const status of [409, undefined]) {
      const asked: unknown[] = [];
      forgotten = [];
      ranHere = [];
      build(status, asked, () => false);
      records.set('s2', migrating('s2', 'node-a'));
      expect(await runner.launch(records.get('s2')!, 'forward')).to.equal('succeeded');
      expect(ranHere, String(status)).to.deep.equal(['s2']);
      expect(forgotten).to.deep.equal(['node-a']);
      await runner.stop();
    }
  });

  it('a server on a Node driven here, and a workflow resumed, are never handed off', async () => {
    const asked: unknown[] = [];
    build(202, asked, (nodeId) => nodeId === 'node-a');
    records.set('s3', migrating('s3', 'node-a'));
    expect(await runner.launch(records.get('s3')!, 'forward')).to.equal('succeeded');
    records.set('s4', migrating('s4', 'node-b'));
    expect(await runner.launch(records.get('s4')!, 'resume')).to.equal('rolled_back');
    expect(asked).to.deep.equal([]);
  });

  it('the holder adopts a run handed to it once, and refuses one for a Node it does not drive or a server with no workflow', async () => {
    build(202, [], (nodeId) => nodeId === 'node-a');
    records.set('s5', migrating('s5', 'node-a'));
    records.set('s6', migrating('s6', 'node-b'));
    records.set('s7', { ...migrating('s7', 'node-a'), workflow: undefined });
    gate = new Promise((resolve) => {
      release = resolve;
    });
    expect(await runner.adopt('s5')).to.equal(true);
    expect(await runner.adopt('s5'), 'asked again while it runs').to.equal(true);
    const run = runner.runOf('s5');
    expect(run).to.not.equal(undefined);
    release();
    expect(await run).to.equal('succeeded');
    expect(ranHere).to.deep.equal(['s5']);
    expect(await runner.adopt('s6')).to.equal(false);
    expect(await runner.adopt('s7')).to.equal(false);
    expect(await runner.adopt('missing')).to.equal(false);
  });
});
