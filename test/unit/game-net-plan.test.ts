import { expect } from 'chai';
import { gameNetFor, gameTable, nameserversOf, nodeTable, nodeTableName } from '../../src/agent/isolation/game-net-plan.js';
import { parseEgressRule } from '../../src/shared/egress-rule.js';

const gamePorts = { first: 27000, last: 27199 };
const rules = { bindAddress: '127.0.0.1', gamePorts, egressAllow: [], nameservers: [] };

describe('a game\'s own network: the plan', () => {
  it('gives each game port its own /31 in 198.18.0.0/15 and a veth named after it', () => {
    expect(gameNetFor('s1', 27000)).to.deep.equal({
      serverId: 's1', netns: 'cairn-s1', hostVeth: 'cg6978', hostAddress: '198.18.210.240', gameAddress: '198.18.210.241', published: [],
    });
    expect(gameNetFor('s2', 1).gameAddress).to.equal('198.18.0.3');
    expect(gameNetFor('s3', 65535)).to.include({ hostVeth: 'cgffff', gameAddress: '198.19.255.255' });
    expect(() => gameNetFor('s4', 0)).to.throw(/game port/);
  });

  it('reads --game-egress-allow as CIDR[:PORT]', () => {
    expect(parseEgressRule('10.1.2.0/24')).to.deep.equal({ cidr: '10.1.2.0/24' });
    expect(parseEgressRule('10.1.2.3:5432')).to.deep.equal({ cidr: '10.1.2.3/32', port: 5432 });
    expect(parseEgressRule(' 192.168.0.0/16:53 ')).to.deep.equal({ cidr: '192.168.0.0/16', port: 53 });
    for (const bad of ['', 'db.local', '10.1.2.256', '10.0.0.0/33', '10.0.0.1:0', '10.0.0.1:70000', '::1', '10.0.0.0/8:x']) expect(parseEgressRule(bad), bad).to.equal(undefined);
  });

  it('takes the IPv4 nameservers a game can reach, never a loopback stub', () => {
    expect(nameserversOf('# x\nnameserver 127.0.0.53\nnameserver 10.0.0.2\nnameserver ::1\n nameserver 1.1.1.1\nnameserver 10.0.0.2\nsearch lan\n')).to.deep.equal(['10.0.0.2', '1.1.1.1']);
  });

  it('publishes only running games\' ports, at the bind address, for TCP and UDP, in one replacing transaction', () => {
    const running = { ...gameNetFor('a', 27001), published: [27001] };
    const stopped = gameNetFor('b', 27002);
    const text = nodeTable([running, stopped], rules);
    const name = nodeTableName(gamePorts);
    expect(name).to.equal('cairn_27000');
    expect(text.split('\n').slice(0, 3)).to.deep.equal([`add table ip ${name}`, `delete table ip ${name}`, `table ip ${name} {`]);
    expect(text).to.include('map tcp_ports { type inet_service : ipv4_addr . inet_service; elements = { 27001 : 198.18.210.243 . 27001 }; }');
    expect(text).to.include('map udp_ports { type inet_service : ipv4_addr . inet_service; elements = { 27001 : 198.18.210.243 . 27001 }; }');
    expect(text).to.include('set veths { type ifname; elements = { "cg6979", "cg697a" }; }');
    expect(text).to.include('ip daddr 127.0.0.1 dnat ip to tcp dport map @tcp_ports');
    expect(text).to.include('iifname @veths fib daddr type local dnat ip to udp dport map @udp_ports');
    expect(nodeTable([], { ...rules, bindAddress: '0.0.0.0' })).to.include('fib daddr type local dnat ip to tcp dport map @tcp_ports')
      .and.to.include('map tcp_ports { type inet_service : ipv4_addr . inet_service; }').and.not.include('iifname @veths fib');
  });

  it('refuses games the Node, link-local and private ranges, except what the operator allows and the resolvers', () => {
    const text = nodeTable([], { ...rules, egressAllow: [{ cidr: '10.9.0.0/16' }, { cidr: '10.8.0.7/32', port: 5432 }], nameservers: ['10.0.0.2'] });
    const fromGame = text.slice(text.indexOf('chain from_game'), text.indexOf('chain forward'));
    const lines = fromGame.split('\n').map((l) => l.trim()).filter((l) => l !== '' && l !== '}');
    expect(lines).to.deep.equal([
      'chain from_game {',
      'ct status dnat accept',
      'ip daddr 10.9.0.0/16 accept',
      'ip daddr 10.8.0.7/32 meta l4proto { tcp, udp } th dport 5432 accept',
      'ip daddr { 10.0.0.2 } meta l4proto { tcp, udp } th dport 53 accept',
      'ip daddr { 127.0.0.0/8, 169.254.0.0/16, 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, 198.18.0.0/15 } jump refuse',
    ]);
    const input = text.slice(text.indexOf('chain input'));
    expect(input).to.include('iifname != @veths accept').and.include('ct state established,related accept').and.include('jump refuse');
    expect(text).to.include('oifname @veths drop');
  });

  it('lets a server\'s own allowances through from its veth alone, before the refusals, also towards the Node', () => {
    const allowed = { ...gameNetFor('a', 27001), published: [27001], egressAllow: [{ cidr: '10.213.77.2/32', port: 7001 }, { cidr: '10.50.0.0/16' }] };
    const neighbour = { ...gameNetFor('b', 27002), published: [27002] };
    const text = nodeTable([allowed, neighbour], { ...rules, egressAllow: [{ cidr: '10.9.0.0/16' }] });
    const own = ['iifname "cg6979" ip daddr 10.213.77.2/32 meta l4proto { tcp, udp } th dport 7001 accept', 'iifname "cg6979" ip daddr 10.50.0.0/16 accept'];
    for (const chain of ['from_game', 'input']) {
      const body = text.slice(text.indexOf(`chain ${chain}`)).split('\n').map((l) => l.trim());
      const lines = body.slice(0, body.indexOf('}'));
      const refusal = lines.findIndex((l) => l.endsWith('jump refuse'));
      expect(lines.slice(refusal - 2, refusal), chain).to.deep.equal(own);
      expect(lines.indexOf('ip daddr 10.9.0.0/16 accept'), chain).to.be.within(0, refusal - 3);
    }
    expect(text).not.to.include('iifname "cg697a" ip daddr');
  });

  it('leads the game\'s loopback on other game ports to the Node, its own ports staying its own', () => {
    const text = gameTable(gameNetFor('a', 27001), [27001], gamePorts);
    expect(text).to.include('ip daddr 127.0.0.0/8 meta l4proto { tcp, udp } th dport 27000-27199 th dport != { 27001 } dnat ip to 198.18.210.242');
    expect(text).to.include('oifname "eth0" ip saddr 127.0.0.0/8 masquerade');
  });
});
