import { expect } from 'chai';
import { compareGameVersions } from '../../src/shared/game-versions.js';

describe('game versions in their vendors\' order', () => {
  it('compares numbers as numbers, a shorter release before its patches', () => {
    expect(compareGameVersions('1.21.10', '1.21.9')).to.be.greaterThan(0);
    expect(compareGameVersions('1.21', '1.21.1')).to.be.lessThan(0);
    expect(compareGameVersions('1.20.6', '1.21.4')).to.be.lessThan(0);
    expect(compareGameVersions('1.21.4', '1.21.4')).to.equal(0);
  });

  it('puts a suffixed version before the release of the same numbers', () => {
    expect(compareGameVersions('1.21.4-crash', '1.21.4')).to.be.lessThan(0);
    expect(compareGameVersions('1.21.4-crash', '1.21.1')).to.be.greaterThan(0);
    expect(compareGameVersions('3.4.0-SNAPSHOT', '3.3.0-SNAPSHOT')).to.be.greaterThan(0);
    expect(compareGameVersions('1.21.5-pre1', '1.21.5-rc1')).to.be.lessThan(0);
  });

  it('sorts a list newest first', () => {
    expect(['1.20.6', '1.21.10', '1.21.4', '1.21', '1.21.4-rc1'].sort((a, b) => compareGameVersions(b, a)))
      .to.deep.equal(['1.21.10', '1.21.4', '1.21.4-rc1', '1.21', '1.20.6']);
  });
});
