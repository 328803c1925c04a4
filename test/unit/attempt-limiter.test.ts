import { expect } from 'chai';
import { isDomainError } from '../../src/controller/core/errors.js';
import { AttemptLimiter, reserveAll } from '../../src/controller/security/attempt-limiter.js';

/** The Retry-After of a refusal, or undefined when the slot was given. */
function refusedFor(take: () => unknown): string | undefined {
  try {
    take();
    return undefined;
  } catch (e) {
    if (isDomainError(e) && e.code === 'too_many_attempts') return e.headers['Retry-After'];
    throw e;
  }
}

describe('AttemptLimiter: slots taken before the check, given back only by a success', () => {
  let ms: number;
  let limiter: AttemptLimiter;
  beforeEach(() => {
    ms = 1_000_000;
    limiter = new AttemptLimiter(3, 60, () => ms);
  });

  it('refuses the fourth attempt in flight, with Retry-After until the window ends', () => {
    for (let i = 0; i < 3; i++) limiter.reserve('k');
    ms += 20_000;
    expect(refusedFor(() => limiter.reserve('k'))).to.equal('40');
    expect(refusedFor(() => limiter.reserve('other'))).to.equal(undefined);
  });

  it('a released slot is free again, once however often it is released', () => {
    const first = limiter.reserve('k');
    limiter.reserve('k');
    limiter.reserve('k');
    first.release();
    first.release();
    expect(refusedFor(() => limiter.reserve('k'))).to.equal(undefined);
    expect(refusedFor(() => limiter.reserve('k'))).to.equal('60');
  });

  it('a new window starts empty, and a slot of the old one given back does not free one in it', () => {
    const old = limiter.reserve('k');
    limiter.reserve('k');
    limiter.reserve('k');
    ms += 60_000;
    for (let i = 0; i < 3; i++) limiter.reserve('k');
    old.release();
    expect(refusedFor(() => limiter.reserve('k'))).to.equal('60');
  });

  it('reserveAll takes every slot or none', () => {
    const full = new AttemptLimiter(1, 60, () => ms);
    full.reserve('busy');
    expect(refusedFor(() => reserveAll([[limiter, 'k'], [full, 'busy']]))).to.equal('60');
    for (let i = 0; i < 3; i++) limiter.reserve('k');
    expect(refusedFor(() => limiter.reserve('k'))).to.equal('60');
  });
});
