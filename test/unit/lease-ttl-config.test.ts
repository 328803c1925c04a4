import { expect } from 'chai';
import { parseControllerConfig } from '../../src/controller/program/config.js';
import { defaultLeaseTiming, isSafeTiming } from '../../src/controller/domain/lease-timing.js';

describe('--lease-ttl-seconds', () => {
  it('is 15 s renewed every 5 s with a 3 s margin by default; the flag and CAIRN_LEASE_TTL_SECONDS set it, the flag first', () => {
    expect(parseControllerConfig([], {}).leaseTiming).to.deep.equal({ ttlMs: 15_000, renewEveryMs: 5_000, marginMs: 3_000 });
    expect(parseControllerConfig([], {}).leaseTiming).to.deep.equal(defaultLeaseTiming);
    expect(parseControllerConfig([], { CAIRN_LEASE_TTL_SECONDS: '6' }).leaseTiming).to.deep.equal({ ttlMs: 6_000, renewEveryMs: 2_000, marginMs: 1_200 });
    expect(parseControllerConfig(['--lease-ttl-seconds', '3'], { CAIRN_LEASE_TTL_SECONDS: '6' }).leaseTiming).to.deep.equal({ ttlMs: 3_000, renewEveryMs: 1_000, marginMs: 600 });
    expect(parseControllerConfig(['--lease-ttl-seconds', '1.5'], {}).leaseTiming.ttlMs).to.equal(1_500);
  });

  it('every time to live it takes leaves room for two renewals before the margin', () => {
    for (const s of ['1', '1.001', '2.5', '7', '3600']) expect(isSafeTiming(parseControllerConfig(['--lease-ttl-seconds', s], {}).leaseTiming), s).to.equal(true);
  });

  it('refuses what is not seconds 1..3600, naming the flag', () => {
    for (const bad of ['0', '0.5', '3601', 'abc', 'Infinity', '1e9']) {
      expect(() => parseControllerConfig(['--lease-ttl-seconds', bad], {}), bad).to.throw(`--lease-ttl-seconds must be seconds 1..3600 (a fraction allowed), got "${bad}"`);
    }
  });
});
