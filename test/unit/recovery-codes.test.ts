import { expect } from 'chai';
import { newRecoveryCode, recoveryAlphabet, recoveryCodeKeys } from '../../src/controller/services/identity/totp-codes.js';

describe('recovery codes: read off paper and typed right', () => {
  it('are lower case, five groups of four, from an alphabet without look-alikes', () => {
    expect(recoveryAlphabet).not.to.match(/[01ilo]/);
    expect(recoveryAlphabet).to.equal(recoveryAlphabet.toLowerCase());
    const codes = Array.from({ length: 200 }, newRecoveryCode);
    for (const code of codes) expect(code).to.match(/^[2-9a-hjkmnp-z]{4}(-[2-9a-hjkmnp-z]{4}){4}$/);
    // Every character of the alphabet turns up: the draw covers it, not a part of it.
    expect(new Set(codes.join('').replaceAll('-', ''))).to.have.property('size', recoveryAlphabet.length);
  });

  it('are looked up as typed (codes issued before) and lower-cased (codes now), without hyphens or spaces', () => {
    expect(recoveryCodeKeys(' ABCD-efgh jkmn ')).to.deep.equal(['ABCDefghjkmn', 'abcdefghjkmn']);
    expect(recoveryCodeKeys('abcd-efgh')).to.deep.equal(['abcdefgh']);
  });
});
