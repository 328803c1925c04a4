import { isIpv4, type EgressRule } from '../../shared/egress-rule.js';
import type { PortRange } from '../../shared/link/messages.js';

/**
 * The pure half of a game's own network (contract: "Containment", "A game's own network"): the
 * names and addresses a game gets, and the nftables rules of the Node and of the game's namespace.
 */

/** One game's network, as persisted in its `net.json` so a restarted Agent renders the same rules. */
export interface GameNet {
  serverId: string;
  /** The name under /run/netns. */
  netns: string;
  /** The Node's end of the veth pair. */
  hostVeth: string;
  hostAddress: string;
  gameAddress: string;
  /** The ports published at the Node's address (TCP and UDP), empty while its game does not run. */
  published: number[];
  /** The server's own `network.egressAllow`: accepted from its veth alone. Absent in records of Agents before it. */
  egressAllow?: EgressRule[];
}

export interface NetRules {
  /** The address games' ports are published at (`--bind-address`): 0.0.0.0 is every local address. */
  bindAddress: string;
  gamePorts: PortRange;
  egressAllow: readonly EgressRule[];
  /** The resolvers of the Node (non-loopback) a game may ask on port 53. */
  nameservers: readonly string[];
}

/** Games' addresses: RFC 2544's benchmarking block, which no real network routes. */
const blockBase = ipToInt('198.18.0.0');
/** A /15 holds this many /31s. */
const slots = 2 ** 16;

/** Where a game may not connect unless allowed: loopback, link-local (cloud metadata), private and shared ranges, other games. */
export const refusedRanges = ['127.0.0.0/8', '169.254.0.0/16', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '198.18.0.0/15'];

function ipToInt(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function intToIp(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/** The IPv4 nameservers of a resolv.conf that a game can reach through the Node (a loopback stub cannot be). */
export function nameserversOf(resolvConf: string): string[] {
  const found = [...resolvConf.matchAll(/^\s*nameserver\s+(\S+)/gm)].map((m) => m[1]);
  return [...new Set(found.filter((ip) => isIpv4(ip) && !ip.startsWith('127.')))];
}

/**
 * The network of the server whose game port is `port`: its /31 and its veth follow from the port,
 * which no other server on the host holds (uids do not do: Agents on one host may share a range).
 */
export function gameNetFor(serverId: string, port: number): GameNet {
  if (!Number.isInteger(port) || port < 1 || port >= slots) throw new Error(`a game's own network needs its game port; got ${port}`);
  return {
    serverId,
    netns: `cairn-${serverId}`,
    hostVeth: `cg${port.toString(16)}`,
    hostAddress: intToIp(blockBase + 2 * port),
    gameAddress: intToIp(blockBase + 2 * port + 1),
    published: [],
  };
}

/** The Agent's table: named after its game ports, which are its alone on the host. */
export const nodeTableName = (gamePorts: PortRange) => `cairn_${gamePorts.first}`;

const set = (items: readonly (string | number)[]) => `{ ${items.join(', ')} }`;

const accept = (r: EgressRule) => (r.port === undefined ? `ip daddr ${r.cidr} accept` : `ip daddr ${r.cidr} meta l4proto { tcp, udp } th dport ${r.port} accept`);

function acceptRules(rules: NetRules, games: readonly GameNet[]): string[] {
  return [
    ...rules.egressAllow.map(accept),
    ...(rules.nameservers.length > 0 ? [`ip daddr ${set(rules.nameservers)} meta l4proto { tcp, udp } th dport 53 accept`] : []),
    // A server's own allowances hold for its game alone: matched on its veth, which no other game sends from.
    ...games.flatMap((g) => (g.egressAllow ?? []).map((r) => `iifname "${g.hostVeth}" ${accept(r)}`)),
  ];
}

function portMap(name: string, games: readonly GameNet[]): string {
  const elements = games.flatMap((g) => g.published.map((port) => `${port} : ${g.gameAddress} . ${port}`));
  return `  map ${name} { type inet_service : ipv4_addr . inet_service;${elements.length > 0 ? ` elements = ${set(elements)};` : ''} }`;
}

/**
 * The Node's whole `table ip cairn`, replaced in one transaction. Published ports are DNATed from
 * the Node's address into their game's namespace (from other hosts, from the Node itself, and from
 * games, so a proxy reaches its members as before); whatever a game sends elsewhere is filtered.
 */
export function nodeTable(games: readonly GameNet[], rules: NetRules): string {
  const name = nodeTableName(rules.gamePorts);
  const veths = games.map((g) => `"${g.hostVeth}"`);
  const everyAddress = rules.bindAddress === '0.0.0.0';
  const toNode = everyAddress ? 'fib daddr type local' : `ip daddr ${rules.bindAddress}`;
  const publish = (match: string) => [`${match} dnat ip to tcp dport map @tcp_ports`, `${match} dnat ip to udp dport map @udp_ports`];
  const lines = [
    `add table ip ${name}`,
    `delete table ip ${name}`,
    `table ip ${name} {`,
    // Only this Agent's games: another Agent on the host keeps its own table and its own games' rules.
    `  set veths { type ifname;${veths.length > 0 ? ` elements = ${set(veths)};` : ''} }`,
    portMap('tcp_ports', games),
    portMap('udp_ports', games),
    '  chain prerouting { type nat hook prerouting priority dstnat;',
    ...publish(toNode).map((l) => `    ${l}`),
    // A game reaches a member at the Node's address through its own veth's far side.
    ...(everyAddress ? [] : publish('iifname @veths fib daddr type local').map((l) => `    ${l}`)),
    '  }',
    '  chain output { type nat hook output priority -100;',
    ...publish(toNode).map((l) => `    ${l}`),
    '  }',
    '  chain postrouting { type nat hook postrouting priority srcnat;',
    '    oifname @veths ip saddr 127.0.0.0/8 masquerade',
    '    iifname @veths oifname != @veths masquerade',
    '  }',
    '  chain refuse {',
    '    meta l4proto tcp reject with tcp reset',
    '    reject with icmp type admin-prohibited',
    '  }',
    '  chain from_game {',
    '    ct status dnat accept',
    ...acceptRules(rules, games).map((l) => `    ${l}`),
    `    ip daddr ${set(refusedRanges)} jump refuse`,
    '  }',
    '  chain forward { type filter hook forward priority filter;',
    '    ct state established,related accept',
    '    iifname @veths jump from_game',
    '    oifname @veths ct status dnat accept',
    '    oifname @veths drop',
    '  }',
    '  chain input { type filter hook input priority filter;',
    '    iifname != @veths accept',
    '    ct state established,related accept',
    ...acceptRules(rules, games).map((l) => `    ${l}`),
    '    jump refuse',
    '  }',
    '}',
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * The table inside a game's namespace: the Node's loopback address on a game port that is not the
 * game's own leads to the Node (where it is some member's published port); the rest of loopback
 * stays the game's.
 */
export function gameTable(net: GameNet, ports: readonly number[], gamePorts: PortRange): string {
  const others = ports.length > 0 ? ` th dport != ${set(ports)}` : '';
  return [
    'table ip cairn_game {',
    '  chain output { type nat hook output priority -100;',
    `    ip daddr 127.0.0.0/8 meta l4proto { tcp, udp } th dport ${gamePorts.first}-${gamePorts.last}${others} dnat ip to ${net.hostAddress}`,
    '  }',
    '  chain postrouting { type nat hook postrouting priority srcnat;',
    '    oifname "eth0" ip saddr 127.0.0.0/8 masquerade',
    '  }',
    '}',
    '',
  ].join('\n');
}
