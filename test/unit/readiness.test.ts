import { expect } from 'chai';
import { StoreFullError } from '../../src/controller/core/store-full.js';
import { checkReadiness, storePingDeadlineMs, type ReadinessProbes } from '../../src/controller/http/readiness.js';

const noAgents = () => ({ listening: true, agentsConnected: 0 });

describe('readiness (/readyz)', () => {
  it('is ready when the store answers, with no Agent connected: the link is reported, never counted', async () => {
    const { report } = await checkReadiness({ pingStore: async () => undefined, agentLink: noAgents });
    expect(report).to.deep.equal({ status: 'ready', store: { ok: true, writable: true }, agentLink: { listening: true, agentsConnected: 0 } });
  });

  it('is unready when the ping fails, naming the failure kind and not its message', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:27017 as user admin'), { code: 'ECONNREFUSED' });
    const { report, cause } = await checkReadiness({ pingStore: async () => Promise.reject(refused), agentLink: () => ({ listening: false, agentsConnected: 0 }) });
    expect(report).to.deep.equal({
      status: 'unready', store: { ok: false, writable: false, detail: 'ping failed (ECONNREFUSED)' }, agentLink: { listening: false, agentsConnected: 0 },
    });
    expect(cause).to.equal(refused);
  });

  it('is unready while the store cannot write for a full disk, saying so', async () => {
    const full = new StoreFullError(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
    const { report } = await checkReadiness({ pingStore: async () => Promise.reject(full), agentLink: noAgents });
    expect(report.status).to.equal('unready');
    expect(report.store).to.deep.equal({ ok: false, writable: false, detail: 'not writable: the disk is full (ENOSPC); writes are refused until space is freed' });
  });

  it('gives up on a store that does not answer after the 1 s deadline', async () => {
    expect(storePingDeadlineMs).to.equal(1000);
    const probes: ReadinessProbes = { pingStore: () => new Promise<void>(() => undefined), agentLink: () => ({ listening: true, agentsConnected: 3 }) };
    const started = performance.now();
    const { report } = await checkReadiness(probes);
    const elapsed = performance.now() - started;
    expect(report).to.deep.equal({
      status: 'unready', store: { ok: false, writable: false, detail: 'no answer to a ping within 1000 ms' }, agentLink: { listening: true, agentsConnected: 3 },
    });
    expect(elapsed).to.be.within(950, 1500);
  });

  it('does not let a ping that fails after its deadline go unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const late = new Promise<void>((_, reject) => setTimeout(() => reject(new Error('late')), 30));
      const { report } = await checkReadiness({ pingStore: () => late, agentLink: noAgents }, 10);
      expect(report.store).to.deep.equal({ ok: false, writable: false, detail: 'no answer to a ping within 10 ms' });
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(unhandled).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
