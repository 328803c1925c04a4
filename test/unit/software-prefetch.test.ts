import { expect } from 'chai';
import { AgentRequestError, NodeUnavailableError } from '../../src/controller/link/errors.js';
import type { NodeCalls } from '../../src/controller/link/node-calls.js';
import { prefetchDeadlineMs, SoftwarePrefetch } from '../../src/controller/services/workflows/update/software-prefetch.js';
import type { TemplateCatalog } from '../../src/controller/adapters/software/template-catalog.js';
import { silentLogger } from '../../src/shared/logger.js';

const download = { url: 'https://example.test/paper.jar', sha256: 'a'.repeat(64), size: 50 * 2 ** 20 };
const software = { template: 'paper', version: '1.21.4' };

/** A prefetch whose Node answers with `answer`; the requests it was sent are kept. */
function prefetchWith(answer: () => Promise<unknown>) {
  const sent: { body: unknown; timeoutMs: number }[] = [];
  const templates = { resolve: () => ({ template: {}, download }) } as unknown as TemplateCatalog;
  const calls = { askNode: async (_node: string, body: unknown, options: { timeoutMs: number }) => { sent.push({ body, timeoutMs: options.timeoutMs }); return answer(); } } as unknown as NodeCalls;
  return { sent, prefetch: new SoftwarePrefetch({ logger: silentLogger }, templates, { ensureDownload: async () => '/x' }, calls) };
}

describe('an update\'s prefetch of the new software (fakes)', () => {
  it('asks the Node for the artifact by checksum and size, within 30 s plus a second per MiB', async () => {
    const { sent, prefetch } = prefetchWith(async () => ({}));
    await prefetch.prefetch('s1', 'n1', software);
    expect(sent).to.deep.equal([{ body: { body: 'prefetchArtifact', prefetchArtifact: { sha256: download.sha256, sha1: '', size: download.size } }, timeoutMs: 80_000 }]);
    expect(prefetchDeadlineMs(undefined)).to.equal(94_000);
  });

  it('a Node that fails or does not answer in time fails it with the cause; an Agent too old for it is let be', async () => {
    const refused = prefetchWith(async () => { throw new AgentRequestError('CHECKSUM_MISMATCH', 'sha256 mismatch for x'); });
    await refused.prefetch.prefetch('s1', 'n1', software).then(() => expect.fail('no failure'), (e: unknown) => expect((e as Error).message).to.equal('the Node could not fetch it: sha256 mismatch for x (CHECKSUM_MISMATCH)'));
    const late = prefetchWith(async () => { throw new NodeUnavailableError('n1', 'deadline'); });
    await late.prefetch.prefetch('s1', 'n1', software).then(() => expect.fail('no failure'), (e: unknown) => expect((e as Error).message).to.equal('the Node could not fetch it: it did not answer within 80 s'));
    await prefetchWith(async () => { throw new AgentRequestError('UNSUPPORTED', 'This Agent does not handle prefetchArtifact requests.'); }).prefetch.prefetch('s1', 'n1', software);
  });
});
