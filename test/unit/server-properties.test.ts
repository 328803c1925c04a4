import { expect } from 'chai';
import { knownProperties, propertyValueProblem } from '../../src/controller/domain/server-properties.js';

describe('server.properties values Cairn checks', () => {
  it('takes true or false for booleans, nothing else', () => {
    for (const key of ['pvp', 'online-mode', 'hardcore', 'allow-flight', 'white-list', 'enforce-whitelist', 'spawn-monsters']) {
      expect(propertyValueProblem(key, 'true'), key).to.equal(undefined);
      expect(propertyValueProblem(key, 'false'), key).to.equal(undefined);
    }
    expect(propertyValueProblem('pvp', 'nope')).to.equal("must be true or false, not 'nope'.");
    expect(propertyValueProblem('pvp', 'TRUE')).to.be.a('string');
    expect(propertyValueProblem('pvp', '')).to.be.a('string');
  });

  it('takes whole numbers within each key\'s range', () => {
    expect(propertyValueProblem('view-distance', '3')).to.equal(undefined);
    expect(propertyValueProblem('view-distance', '32')).to.equal(undefined);
    expect(propertyValueProblem('view-distance', '2')).to.equal("must be a whole number from 3 to 32, not '2'.");
    expect(propertyValueProblem('view-distance', '33')).to.be.a('string');
    expect(propertyValueProblem('spawn-protection', '0')).to.equal(undefined);
    expect(propertyValueProblem('spawn-protection', '-1')).to.be.a('string');
    expect(propertyValueProblem('max-players', '20')).to.equal(undefined);
    for (const bad of ['twenty', '2.5', '1e3', ' 20', '', '99999999999999999']) expect(propertyValueProblem('max-players', bad), bad).to.be.a('string');
    expect(propertyValueProblem('max-tick-time', '-1')).to.equal(undefined);
  });

  it('takes the names of enums, and the numbers the game also reads for difficulty and gamemode', () => {
    for (const v of ['peaceful', 'easy', 'normal', 'hard', '0', '3']) expect(propertyValueProblem('difficulty', v), v).to.equal(undefined);
    expect(propertyValueProblem('difficulty', 'insane')).to.equal("must be one of peaceful, easy, normal, hard, not 'insane'.");
    expect(propertyValueProblem('difficulty', '4')).to.be.a('string');
    expect(propertyValueProblem('gamemode', 'creative')).to.equal(undefined);
    expect(propertyValueProblem('gamemode', 'god')).to.be.a('string');
    expect(propertyValueProblem('level-type', 'minecraft:flat')).to.equal(undefined);
    expect(propertyValueProblem('level-type', '0')).to.be.a('string');
  });

  it('leaves other keys free, including names an object has', () => {
    expect(propertyValueProblem('motd', 'anything at all')).to.equal(undefined);
    expect(propertyValueProblem('constructor', 'x')).to.equal(undefined);
    expect(knownProperties).not.to.have.property('server-port');
  });
});
