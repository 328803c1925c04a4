import { expect } from 'chai';
import type { Caller } from '../../src/controller/core/caller.js';
import { DomainError } from '../../src/controller/core/errors.js';
import { requireJoinable, requireJoinableTemplate, requireMaySetEgress, requireReinstallable, requireSleepable, requireTemplateKind, sleepOf } from '../../src/controller/domain/server-refusals.js';
import { emptyObserved } from '../../src/controller/domain/server-spec.js';

const codeOf = (work: () => void) => {
  try {
    work();
    return 'OK';
  } catch (e) {
    return e instanceof DomainError ? e.code : 'other';
  }
};
const busy = () => new DomainError('phase_busy', 'busy');

describe('server refusals: what a change is refused for before any record is read again', () => {
  it('a template of the other kind is an invalid request; the same kind passes', () => {
    expect([codeOf(() => requireTemplateKind('PROXY', 'GAME_SERVER')), codeOf(() => requireTemplateKind('GAME_SERVER', 'PROXY')), codeOf(() => requireTemplateKind('PROXY', 'PROXY'))])
      .to.deep.equal(['invalid_request', 'invalid_request', 'OK']);
  });

  it('only game servers of a member template join the network', () => {
    expect([
      codeOf(() => requireJoinableTemplate({ id: 'velocity', networkMember: false })), codeOf(() => requireJoinableTemplate({ id: 'paper', networkMember: true })),
      codeOf(() => requireJoinable('PROXY', true)), codeOf(() => requireJoinable('GAME_SERVER', undefined)), codeOf(() => requireJoinable('GAME_SERVER', true)),
    ]).to.deep.equal(['not_network_capable', 'OK', 'not_network_capable', 'not_network_capable', 'OK']);
  });

  it('egress entries change only by a global administrator; sending them back unchanged is anyone\'s', () => {
    const member = { kind: 'USER', user: { globalAdmin: false } } as unknown as Caller;
    expect([codeOf(() => requireMaySetEgress(member, ['10.0.0.0/8'], ['10.0.0.0/8'])), codeOf(() => requireMaySetEgress(member, [], undefined)), codeOf(() => requireMaySetEgress(member, [], ['10.0.0.0/8']))])
      .to.deep.equal(['OK', 'OK', 'forbidden']);
  });

  it('only a FAILED server with nothing installed is reinstalled; a busy one gets its busy refusal', () => {
    const installed = { ...emptyObserved(), installed: true };
    expect([
      codeOf(() => requireReinstallable({ phase: 'READY', observed: emptyObserved() }, busy)),
      codeOf(() => requireReinstallable({ phase: 'MIGRATING', observed: emptyObserved() }, busy)),
      codeOf(() => requireReinstallable({ phase: 'FAILED', observed: installed }, busy)),
      codeOf(() => requireReinstallable({ phase: 'FAILED', observed: emptyObserved() }, busy)),
    ]).to.deep.equal(['invalid_transition', 'phase_busy', 'invalid_transition', 'OK']);
  });

  it('sleep only for game servers whose template counts players; a join wakes unless told otherwise', () => {
    const slp = { id: 'paper', status: { protocol: 'minecraft-slp' } };
    const refusal = (work: () => void) => {
      try {
        work();
        return 'OK';
      } catch (e) {
        return e instanceof DomainError ? `${e.code} ${e.message.split(':')[0]}` : 'other';
      }
    };
    expect([
      refusal(() => requireSleepable('GAME_SERVER', slp, { afterEmptySeconds: 60 })),
      refusal(() => requireSleepable('GAME_SERVER', { id: 'countless' }, { afterEmptySeconds: 60 })),
      refusal(() => requireSleepable('PROXY', slp, { afterEmptySeconds: 60 })),
      refusal(() => requireSleepable('GAME_SERVER', { id: 'countless' }, null)),
    ]).to.deep.equal(['OK', 'invalid_request body.sleep', 'invalid_request body.sleep', 'OK']);
    expect(sleepOf({ afterEmptySeconds: 60 })).to.deep.equal({ afterEmptySeconds: 60, wakeOnJoin: true });
    expect(sleepOf({ afterEmptySeconds: 60, wakeOnJoin: false })).to.deep.equal({ afterEmptySeconds: 60, wakeOnJoin: false });
    expect(sleepOf(null)).to.equal(null);
  });
});
