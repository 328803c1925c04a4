import { expect } from 'chai';
import { parseControllerConfig } from '../../src/controller/program/config.js';

describe('--advertise-address', () => {
  it('is unset by default; the flag and CAIRN_ADVERTISE_ADDRESS set it, the flag first', () => {
    expect(parseControllerConfig([], {}).advertiseAddress).to.equal(undefined);
    expect(parseControllerConfig([], { CAIRN_ADVERTISE_ADDRESS: 'c1.example.net:8443' }).advertiseAddress).to.equal('c1.example.net:8443');
    expect(parseControllerConfig(['--advertise-address', '10.0.0.5:9443'], { CAIRN_ADVERTISE_ADDRESS: 'c1.example.net:8443' }).advertiseAddress).to.equal('10.0.0.5:9443');
    expect(parseControllerConfig(['--advertise-address', '[fd00::5]:8443'], {}).advertiseAddress).to.equal('[fd00::5]:8443');
  });

  it('refuses what is not HOST:PORT, naming the flag', () => {
    for (const bad of ['c1.example.net', 'c1:0', 'c1:70000', ':8443', 'a b:8443', 'fd00::5:8443']) {
      expect(() => parseControllerConfig(['--advertise-address', bad], {}), bad).to.throw(`--advertise-address must be HOST:PORT, got "${bad}"`);
    }
  });
});
