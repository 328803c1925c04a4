import { expect } from 'chai';
import { parseProperties } from '../../src/sim/properties.js';

describe('simcraft: server.properties reader', () => {
  it('reads Java properties syntax: separators, comments, continuations and escapes', () => {
    const props = parseProperties([
      '#Minecraft server properties',
      '! another comment',
      'server-port=25570',
      'server-ip = 127.0.0.1',
      'level-name: my world',
      'motd A\\u0020server\\tyes\\',
      '    continued',
      'key\\=with\\:odd=value=with=equals',
      'empty=',
      '',
    ].join('\r\n'));
    expect(Object.fromEntries(props)).to.deep.equal({
      'server-port': '25570',
      'server-ip': '127.0.0.1',
      'level-name': 'my world',
      motd: 'A server\tyescontinued',
      'key=with:odd': 'value=with=equals',
      empty: '',
    });
  });
});
