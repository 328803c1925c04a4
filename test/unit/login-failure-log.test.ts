import { expect } from 'chai';
import { LoginFailureLog } from '../../src/controller/services/audit/login-failures.js';
import type { AuditService } from '../../src/controller/services/audit/audit.js';
import type { ServiceDeps } from '../../src/controller/services/deps.js';
import type { NewAuditEvent } from '../../src/controller/store/records.js';
import { TestClock } from '../support/clock.js';

describe('LoginFailureLog: at most one auth.login event per account and address per minute', () => {
  let clock: TestClock;
  let events: NewAuditEvent[];
  let log: LoginFailureLog;
  const fail = (userId: string | undefined, clientAddress: string, error = 'invalid_credentials') =>
    log.failed({ userId, username: userId ? 'admin' : 'ghost', clientAddress, error });
  const counts = () => events.map((e) => e.details.count);

  beforeEach(() => {
    clock = new TestClock();
    events = [];
    const audit = { recordEvent: async (e: NewAuditEvent) => { events.push(e); } } as unknown as AuditService;
    log = new LoginFailureLog({ clock } as unknown as ServiceDeps, audit);
  });
  afterEach(async () => log.stop());

  it('writes the first failure at once and only counts the rest of the minute', async () => {
    for (let i = 0; i < 50; i++) await fail('u1', '10.0.0.1');
    expect(counts()).to.deep.equal([1]);
    expect(events[0]).to.deep.include({ action: 'auth.login', outcome: 'DENIED', actorUserId: 'u1', targetId: 'u1' });
    expect(events[0].details).to.include({ username: 'admin', clientAddress: '10.0.0.1' });
  });

  it('keys by account and address: another address or account gets its own event', async () => {
    await fail('u1', '10.0.0.1');
    await fail('u1', '10.0.0.2');
    await fail('u2', '10.0.0.1');
    await fail(undefined, '10.0.0.1');
    await fail(undefined, '10.0.0.1');
    expect(counts()).to.deep.equal([1, 1, 1, 1]);
    expect(events[3].details).to.deep.include({ usernames: ['ghost'] });
    expect(events[3].details.username).to.equal(undefined);
  });

  it('after the minute, the next failure writes the count since the last event, and opens a new window', async () => {
    for (let i = 0; i < 10; i++) await fail('u1', '10.0.0.1', i < 5 ? 'invalid_credentials' : 'too_many_attempts');
    clock.advance(60_000);
    await fail('u1', '10.0.0.1', 'too_many_attempts');
    expect(counts()).to.deep.equal([1, 10]);
    expect(events[1].details.errors).to.deep.equal({ invalid_credentials: 4, too_many_attempts: 6 });
    await fail('u1', '10.0.0.1');
    expect(counts()).to.deep.equal([1, 10]);
  });

  it('flush writes windows that ended with failures pending and forgets quiet ones; stop writes all that is pending', async () => {
    await fail('u1', '10.0.0.1');
    await fail('u1', '10.0.0.1');
    await fail('u2', '10.0.0.1');
    await fail('u3', '10.0.0.1');
    await fail('u3', '10.0.0.1');
    clock.advance(30_000);
    await log.flush(false);
    expect(counts()).to.deep.equal([1, 1, 1]);
    clock.advance(31_000);
    await log.flush(false);
    expect(counts()).to.deep.equal([1, 1, 1, 1, 1]);
    // u2's quiet window is gone: its next failure is written at once.
    await fail('u2', '10.0.0.1');
    await fail('u3', '10.0.0.1');
    expect(counts()).to.deep.equal([1, 1, 1, 1, 1, 1]);
    await log.stop();
    expect(counts()).to.deep.equal([1, 1, 1, 1, 1, 1, 1]);
  });
});
