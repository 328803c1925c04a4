import { expect } from 'chai';
import { parse } from 'smol-toml';
import { renderVelocityToml, velocityServerNames } from '../../src/agent/network/velocity-toml.js';

describe('velocity.toml rendering', () => {
  const routes = [
    { serverId: 'aaaaaaaa-1', name: 'Lobby 1', address: '10.0.0.1', port: 47566 },
    { serverId: 'bbbbbbbb-2', name: 'lobby-1', address: '::1', port: 47567 },
    { serverId: 'cccccccc-3', name: 'try', address: 'arena.example', port: 47568 },
  ];

  it('names servers safely and uniquely (never `try`)', () => {
    expect(velocityServerNames(routes)).to.deep.equal(['lobby-1', 'lobby-1-bbbbbbbb', 'try-cccccccc']);
    expect(velocityServerNames([{ serverId: 'x', name: '***', address: 'a', port: 1 }])).to.deep.equal(['server']);
  });

  it('renders servers, try in route order, modern forwarding and the bind, keeping the operator\'s settings', () => {
    const existing = [
      'config-version = "2.7"', 'bind = "0.0.0.0:25577"', 'motd = "<#09add3>Hello"', 'player-info-forwarding-mode = "NONE"',
      '[servers]', 'old = "127.0.0.1:30066"', 'try = ["old"]', '[forced-hosts]', '"lobby.example.com" = ["old"]', '[advanced]', 'compression-threshold = 256', '',
    ].join('\n');
    const out = parse(renderVelocityToml(existing, { bind: '0.0.0.0:47565', routes, forwardingSecretFile: 'forwarding.secret' }));
    expect(out).to.deep.include({
      'config-version': '2.7', bind: '0.0.0.0:47565', motd: '<#09add3>Hello', 'player-info-forwarding-mode': 'modern',
      'forwarding-secret-file': 'forwarding.secret', 'forced-hosts': {}, advanced: { 'compression-threshold': 256 },
    });
    expect(out.servers).to.deep.equal({
      'lobby-1': '10.0.0.1:47566', 'lobby-1-bbbbbbbb': '[::1]:47567', 'try-cccccccc': 'arena.example:47568',
      try: ['lobby-1', 'lobby-1-bbbbbbbb', 'try-cccccccc'],
    });
  });

  it('starts a fresh file when there is none, with no servers to try when no member runs', () => {
    const out = parse(renderVelocityToml('', { bind: '127.0.0.1:40000', routes: [], forwardingSecretFile: 'forwarding.secret' }));
    expect(out).to.deep.include({ 'config-version': '2.7', bind: '127.0.0.1:40000', servers: { try: [] } });
  });

  it('refuses to rewrite a file that is not TOML', () => {
    expect(() => renderVelocityToml('bind = ', { bind: 'x:1', routes: [], forwardingSecretFile: 'f' })).to.throw();
  });
});
