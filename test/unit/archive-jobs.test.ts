import { expect } from 'chai';
import { AuditScope } from '../../src/controller/core/audit-scope.js';
import type { Caller } from '../../src/controller/core/caller.js';
import { nodeUnavailable, type NodeCalls } from '../../src/controller/link/node-calls.js';
import { ArchiveJobs } from '../../src/controller/services/files/archive-jobs.js';
import { FileChangesUnderWay } from '../../src/controller/services/files/file-changes.js';
import type { ServerAggregate } from '../../src/controller/services/servers/aggregate.js';
import type { RequestOptions } from '../../src/controller/link/node-session.js';
import type { Response } from '../../src/shared/link/messages.js';
import type { ServerDoc } from '../../src/controller/store/records.js';
import { waitFor } from '../support/wait-for.js';

describe('archive jobs: an Agent that goes away mid-extract', () => {
  it('ends the job FAILED with the whole files it had put in place', async () => {
    const doc = { _id: 'srv', nodeId: 'node', phase: 'READY' } as unknown as ServerDoc;
    const servers = { load: () => Promise.resolve(doc) } as unknown as ServerAggregate;
    let fail!: (e: unknown) => void;
    const calls = {
      ask: (_doc: ServerDoc, _body: unknown, options: RequestOptions) => {
        for (const path of ['out/a.txt', 'out/b.txt']) {
          options.onPart?.({ requestId: 'r', ok: true, more: true, error: null, payload: 'archiveProgress', archiveProgress: { bytes: 10, written: [path], entries: 1 } });
        }
        return new Promise<Response>((_resolve, reject) => { fail = reject; });
      },
    } as unknown as NodeCalls;
    const jobs = new ArchiveJobs(servers, calls, new FileChangesUnderWay());
    const caller = {} as Caller;
    const started = await jobs.extract(caller, 'srv', { path: 'big.tar' }, new AuditScope('server.file.extract', 'server'));
    expect(started).to.include({ state: 'RUNNING', into: '.' });
    fail(nodeUnavailable('The server\'s Node is not connected.'));
    const job = await waitFor(async () => {
      const now = await jobs.get(caller, 'srv', started.id);
      return now.state === 'RUNNING' ? undefined : now;
    }, { what: 'the job to end' });
    expect(job).to.include({ state: 'FAILED', error: 'The server\'s Node is not connected.' });
    expect(job.written).to.deep.equal(['out/a.txt', 'out/b.txt']);
  });
});
