import { expect } from 'chai';
import type { Caller } from '../../src/controller/core/caller.js';
import { AccessEvents } from '../../src/controller/services/identity/access-events.js';
import type { SessionService } from '../../src/controller/services/identity/sessions.js';
import { StreamGuards, streamRecheckMs, type HoldingStream } from '../../src/controller/services/identity/stream-guard.js';
import type { TokenService } from '../../src/controller/services/identity/tokens.js';
import type { Repositories } from '../../src/controller/store/repositories.js';
import type { UserDoc } from '../../src/controller/store/records.js';
import { silentLogger } from '../../src/shared/logger.js';
import { TestClock } from '../support/clock.js';
import { waitFor } from '../support/wait-for.js';

/** A promise resolved from outside, so a test decides when each check answers. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('StreamGuards: a stream kept within its caller\'s access', () => {
  const user = { _id: 'u1', globalAdmin: false } as UserDoc;
  const caller: Caller = { kind: 'USER', user, sessionHash: 'h1' };
  let events: AccessEvents;
  let clock: TestClock;
  let sessionLive: boolean | Error;
  let guards: StreamGuards;
  /** What the stream was told, in order. */
  let told: string[];
  let stream: HoldingStream;

  beforeEach(() => {
    events = new AccessEvents();
    clock = new TestClock();
    sessionLive = true;
    told = [];
    stream = { hold: () => told.push('hold'), release: () => told.push('release'), revoke: () => told.push('revoke') };
    const sessions = {
      isLive: async () => {
        if (sessionLive instanceof Error) throw sessionLive;
        return sessionLive;
      },
    } as unknown as SessionService;
    const repos = { users: { findById: async () => user } } as unknown as Repositories;
    guards = new StreamGuards(events, sessions, {} as TokenService, repos, clock, silentLogger);
  });

  it('checks at once, holding the stream until the answer', async () => {
    guards.keep(caller, stream, async () => true);
    await waitFor(() => told.length === 2, { what: 'the first check' });
    expect(told).to.deep.equal(['hold', 'release']);
  });

  it('a signal during a check runs another; the stream is released only by the answer after the last signal', async () => {
    const answers = [deferred<boolean>(), deferred<boolean>()];
    let asked = 0;
    guards.keep(caller, stream, () => answers[asked++].promise);
    await waitFor(() => asked === 1, { what: 'the first check' });
    events.publish({ userId: 'u1', kind: 'membership_changed' });
    answers[0].resolve(true);
    await waitFor(() => asked === 2, { what: 'the second check' });
    expect(told).to.deep.equal(['hold', 'hold']);
    answers[1].resolve(false);
    await waitFor(() => told.includes('revoke'), { what: 'the revocation' });
    expect(told).to.deep.equal(['hold', 'hold', 'revoke']);
  });

  it('ignores other users\' signals; after a revocation it listens no more', async () => {
    let allowed = true;
    let asked = 0;
    guards.keep(caller, stream, async () => {
      asked += 1;
      return allowed;
    });
    await waitFor(() => told.length === 2, { what: 'the first check' });
    events.publish({ userId: 'u2', kind: 'user_deleted' });
    allowed = false;
    events.publish({ userId: 'u1', kind: 'role_changed' });
    await waitFor(() => told.includes('revoke'), { what: 'the revocation' });
    events.publish({ userId: 'u1', kind: 'role_changed' });
    clock.advance(streamRecheckMs);
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).to.equal(2);
    expect(told).to.deep.equal(['hold', 'release', 'hold', 'revoke']);
  });

  it('re-checks every minute without holding: an expired session ends the stream', async () => {
    guards.keep(caller, stream, async () => true);
    await waitFor(() => told.length === 2, { what: 'the first check' });
    sessionLive = false;
    clock.advance(streamRecheckMs);
    await waitFor(() => told.includes('revoke'), { what: 'the revocation' });
    expect(told).to.deep.equal(['hold', 'release', 'revoke']);
  });

  it('a check the store fails ends the stream; a stopped guard checks no more', async () => {
    const stop = guards.keep(caller, stream, async () => true);
    await waitFor(() => told.length === 2, { what: 'the first check' });
    stop();
    events.publish({ userId: 'u1', kind: 'session_ended' });
    clock.advance(streamRecheckMs);
    expect(told).to.deep.equal(['hold', 'release']);
    sessionLive = new Error('store down');
    guards.keep(caller, stream, async () => true);
    await waitFor(() => told.includes('revoke'), { what: 'the revocation' });
    expect(told).to.deep.equal(['hold', 'release', 'hold', 'revoke']);
  });
});
