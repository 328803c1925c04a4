import { expect } from 'chai';
import { isManagedProperty, PropertiesFile } from '../../src/shared/properties-file.js';

const sample = [
  '#Minecraft server properties',
  '#Mon Nov 23 09:00:00 UTC 2026',
  '',
  'motd=A Minecraft Server',
  '! bang comment',
  'server-port = 30565',
  'level-name: world',
  'spaced\\ key=spaced value',
  'multi=first \\',
  '    second',
  'unicode=caf\\u00e9',
  'trailing=value   ',
  'empty=',
  'motd=Duplicate wins',
  'no-newline-at-end=yes',
].join('\n');

describe('properties file', () => {
  it('reads values as java.util.Properties does', () => {
    const values = PropertiesFile.parse(sample).values();
    expect(values).to.deep.include({
      'server-port': '30565', 'level-name': 'world', 'spaced key': 'spaced value', multi: 'first second',
      unicode: 'café', trailing: 'value   ', empty: '', motd: 'Duplicate wins', 'no-newline-at-end': 'yes',
    });
  });

  it('round-trips a file it did not change byte for byte', () => {
    expect(PropertiesFile.parse(sample).toString()).to.equal(sample);
    const crlf = sample.replaceAll('\n', '\r\n');
    expect(PropertiesFile.parse(crlf).toString()).to.equal(crlf);
  });

  it('changes only the lines of the keys it sets or removes', () => {
    const file = PropertiesFile.parse(sample);
    file.set('level-name', 'survival');
    file.remove('empty');
    file.set('difficulty', 'hard');
    const out = file.toString();
    expect(out).to.contain('#Minecraft server properties\n#Mon Nov 23 09:00:00 UTC 2026\n\nmotd=A Minecraft Server\n! bang comment\nserver-port = 30565\nlevel-name=survival\n');
    expect(out).to.contain('multi=first \\\n    second\n');
    expect(out).not.to.contain('empty=');
    expect(out.endsWith('no-newline-at-end=yes\ndifficulty=hard\n')).to.equal(true);
  });

  it('collapses duplicates of a key it sets into its last place', () => {
    const file = PropertiesFile.parse(sample);
    file.set('motd', 'Welcome');
    const out = file.toString();
    expect(out.match(/^motd=/gm)).to.have.length(1);
    expect(out).to.contain('empty=\nmotd=Welcome\n');
  });

  it('escapes what needs escaping and reads it back the same', () => {
    const file = PropertiesFile.parse('');
    const tricky = { ' lead': ' leading space', 'a=b:c': '#not a comment', tab: 'a\tb\nc', 'ünï': 'é€\\' };
    for (const [k, v] of Object.entries(tricky)) file.set(k, v);
    expect(PropertiesFile.parse(file.toString()).values()).to.deep.equal(tricky);
    expect(file.toString()).to.contain('\\u00e9\\u20ac\\\\');
  });

  it('reads Java properties syntax: separators, comments, continuations and escapes', () => {
    const props = PropertiesFile.parse([
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
    ].join('\r\n')).values();
    expect(props).to.deep.equal({
      'server-port': '25570',
      'server-ip': '127.0.0.1',
      'level-name': 'my world',
      motd: 'A server\tyescontinued',
      'key=with:odd': 'value=with=equals',
      empty: '',
    });
  });

  it('knows the managed keys', () => {
    for (const k of ['server-port', 'server-ip', 'enable-rcon', 'rcon.password', 'rcon.port', 'enable-query', 'query.port']) expect(isManagedProperty(k), k).to.equal(true);
    for (const k of ['motd', 'query', 'rcon', 'server-name']) expect(isManagedProperty(k), k).to.equal(false);
  });
});
