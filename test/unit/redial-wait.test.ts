import { expect } from 'chai';
import { redialWaitMs, type RedialState } from '../../src/agent/link/redial-wait.js';

const policy = { initialMs: 500, maxMs: 30_000, factor: 2 };
/** The jitter at its top: each wait is its ceiling. */
const top = () => 1;
const failed = (attempt: number, extra: Partial<RedialState> = {}): RedialState => ({ attempt, redirects: 0, redirected: false, silenceLimitMs: 0, credentialRefused: false, ...extra });

describe('redialWaitMs: how long the Agent waits before it dials again', () => {
  it('alone on its store (no silence limit) backs off exponentially up to the policy\'s most', () => {
    expect([0, 1, 2, 3, 6, 20].map((a) => redialWaitMs(failed(a), policy, top))).to.deep.equal([500, 1000, 2000, 4000, 30_000, 30_000]);
  });

  it('among several Controllers waits at most a third of the silence limit', () => {
    expect([0, 1, 2, 3, 20].map((a) => redialWaitMs(failed(a, { silenceLimitMs: 7_500 }), policy, top))).to.deep.equal([500, 1000, 2000, 2500, 2500]);
    expect(redialWaitMs(failed(20, { silenceLimitMs: 600 }), policy, top), 'never below the first wait').to.equal(500);
  });

  it('a refused credential backs off in full, limit or not', () => {
    expect(redialWaitMs(failed(20, { silenceLimitMs: 7_500, credentialRefused: true }), policy, top)).to.equal(30_000);
  });

  it('follows the first three redirects at once, then waits at most the third step', () => {
    expect([1, 2, 3].map((r) => redialWaitMs(failed(9, { redirects: r, redirected: true }), policy, top))).to.deep.equal([0, 0, 0]);
    expect(redialWaitMs(failed(9, { redirects: 4, redirected: true }), policy, top)).to.equal(2000);
    expect(redialWaitMs(failed(9, { redirects: 1 }), policy, top), 'a failure after a redirect').to.equal(2000);
  });
});
