import { expect } from 'chai';
import { withoutControls } from '../../src/cli/terminal-text.js';

describe('cairn logs: terminal control in game output', () => {
  it('removes colour and cursor sequences (CSI), in 7-bit and 8-bit form', () => {
    expect(withoutControls('\x1b[31mred\x1b[0m and \x1b[2J\x1b[1;1Hmoved')).to.equal('red and moved');
    expect(withoutControls('a\x9b2Jb')).to.equal('ab');
  });

  it('removes title, clipboard and other strings (OSC, DCS) up to BEL or ST, and two-byte escapes', () => {
    expect(withoutControls('x\x1b]0;owned\x07y')).to.equal('xy');
    expect(withoutControls('x\x1b]52;c;Zm9v\x1b\\y')).to.equal('xy');
    expect(withoutControls('x\x1bPq#0\x1b\\y')).to.equal('xy');
    expect(withoutControls('full reset\x1bc gone')).to.equal('full reset gone');
  });

  it('removes other C0 controls and DEL, keeping tab, newline and any printable text', () => {
    expect(withoutControls('bell\x07 cr\r back\x08 nul\x00 del\x7f')).to.equal('bell cr back nul del');
    expect(withoutControls('col\tumn\nnext [Server] héllo ✓ <Steve> hi')).to.equal('col\tumn\nnext [Server] héllo ✓ <Steve> hi');
  });

  it('removes a sequence cut off at the end of a line', () => {
    expect(withoutControls('trail\x1b[')).to.equal('trail');
    expect(withoutControls('trail\x1b')).to.equal('trail');
  });
});
