import { access, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KeyedMutex } from '../../shared/keyed-mutex.js';
import type { Logger } from '../../shared/logger.js';
import { serverHome } from '../reconciler/server-paths.js';
import { isValidServerId } from '../runtime/state-dir.js';
import type { EgressRule } from '../../shared/egress-rule.js';
import { gameNetFor, gameTable, nodeTable, type GameNet, type NetRules } from './game-net-plan.js';
import { runCommand } from './net-commands.js';

/** The programs the namespaces and rules are made with (found by the probe). */
export interface NetTools {
  ip: string;
  nft: string;
  nsenter: string;
}

export const netnsPath = (name: string) => `/run/netns/${name}`;
const netFile = (dataDir: string, serverId: string) => join(serverHome(dataDir, serverId), 'net.json');
const exists = (path: string) => access(path).then(() => true, () => false);

async function readNet(dataDir: string, serverId: string): Promise<GameNet | null> {
  try {
    return JSON.parse(await readFile(netFile(dataDir, serverId), 'utf8')) as GameNet;
  } catch {
    return null;
  }
}

/**
 * Gives each game a network namespace behind a veth pair, and keeps the Node's nftables table in
 * step with what runs: it is rendered whole from the games' `net.json` files, so an Agent that
 * restarts (even after SIGKILL) renders the rules the running games already live behind.
 */
export class GameNetwork {
  private readonly games = new Map<string, GameNet>();
  /** Each server's own `network.egressAllow`, also of servers whose game has no namespace yet (it gets them at its first start). */
  private readonly allowed = new Map<string, EgressRule[]>();
  /** Namespace changes and renders, one at a time: each render must see every game. */
  private readonly lock = new KeyedMutex();

  private constructor(
    private readonly tools: NetTools,
    private readonly rules: NetRules,
    private readonly dataDir: string,
    private readonly logger: Logger,
  ) {}

  /** The games' networks kept on disk, rendered into the Node's table (games started before a restart keep theirs). */
  static async load(tools: NetTools, rules: NetRules, dataDir: string, logger: Logger): Promise<GameNetwork> {
    const network = new GameNetwork(tools, rules, dataDir, logger);
    const servers = await readdir(join(dataDir, 'servers')).catch(() => [] as string[]);
    for (const serverId of servers.filter(isValidServerId)) {
      const net = await readNet(dataDir, serverId);
      if (net) network.games.set(serverId, net);
      if (net?.egressAllow) network.allowed.set(serverId, net.egressAllow);
    }
    await writeFile('/proc/sys/net/ipv4/ip_forward', '1');
    await network.lock.run('net', () => network.render());
    return network;
  }

  /** Whether the server's game (running or last run) lives in a namespace of its own. */
  has(serverId: string): boolean {
    return this.games.has(serverId);
  }

  /**
   * A fresh namespace for the server's next game, its ports published: whatever an earlier run
   * or a killed Agent left of this server or of its port goes first. Its addresses follow from
   * the first port. Returns the namespace's path.
   */
  async prepare(serverId: string, ports: readonly number[]): Promise<string> {
    return this.lock.run('net', async () => {
      const net = { ...gameNetFor(serverId, ports[0]), published: [...ports], egressAllow: this.allowed.get(serverId) ?? [] };
      for (const [id, old] of this.games) {
        if (id !== serverId && old.hostVeth !== net.hostVeth) continue;
        await this.clear(old);
        this.games.delete(id);
      }
      await this.clear(net);
      await this.create(net, ports);
      await this.save(net);
      this.games.set(serverId, net);
      await this.render();
      return netnsPath(net.netns);
    });
  }

  /** The game exited: its ports are no longer led into its namespace (another may get them). */
  async unpublish(serverId: string): Promise<void> {
    await this.lock.run('net', async () => {
      const net = this.games.get(serverId);
      if (!net || net.published.length === 0) return;
      net.published = [];
      await this.save(net);
      await this.render();
    });
  }

  /**
   * The server's own allowances (`network.egressAllow`), applied to a running game at once: the
   * rules are only the Node's, so the game needs no restart. Unchanged ones render nothing.
   */
  async allow(serverId: string, rules: readonly EgressRule[]): Promise<void> {
    await this.lock.run('net', async () => {
      if (JSON.stringify(this.allowed.get(serverId) ?? []) === JSON.stringify(rules)) return;
      this.allowed.set(serverId, [...rules]);
      const net = this.games.get(serverId);
      if (!net) return;
      net.egressAllow = [...rules];
      await this.save(net);
      await this.render();
    });
  }

  /** The server left the Node: its namespace, veth and record go. */
  async remove(serverId: string): Promise<void> {
    await this.lock.run('net', async () => {
      this.allowed.delete(serverId);
      const net = this.games.get(serverId);
      if (!net) return;
      await this.clear(net);
      this.games.delete(serverId);
      await rm(netFile(this.dataDir, serverId), { force: true });
      await this.render();
    });
  }

  private async create(net: GameNet, ports: readonly number[]): Promise<void> {
    const { ip, nft, nsenter } = this.tools;
    await runCommand(ip, ['-batch', '-'], [
      `netns add ${net.netns}`,
      `link add ${net.hostVeth} type veth peer name eth0 netns ${net.netns}`,
      `addr add ${net.hostAddress}/31 dev ${net.hostVeth}`,
      '',
    ].join('\n'));
    // No IPv6 link-local address: through it a game would reach the Node's IPv6 listeners unfiltered.
    await writeIfPresent(`/proc/sys/net/ipv6/conf/${net.hostVeth}/disable_ipv6`);
    // Connections to the Node's loopback (players on the Node, the Agent's pings) are DNATed out of this veth.
    await writeFile(`/proc/sys/net/ipv4/conf/${net.hostVeth}/route_localnet`, '1');
    const inside = [
      '[ ! -e /proc/sys/net/ipv6/conf/eth0/disable_ipv6 ] || echo 1 > /proc/sys/net/ipv6/conf/eth0/disable_ipv6',
      // The game's loopback connections to members leave through eth0 (gameTable).
      'echo 1 > /proc/sys/net/ipv4/conf/eth0/route_localnet',
      `"$1" link set lo up && "$1" addr add ${net.gameAddress}/31 dev eth0 && "$1" link set eth0 up && "$1" route add default via ${net.hostAddress}`,
      'exec "$2" -f -',
    ].join('\n');
    await runCommand(nsenter, [`--net=${netnsPath(net.netns)}`, '--', '/bin/sh', '-ec', inside, 'cairn-net', ip, nft], gameTable(net, ports, this.rules.gamePorts));
    await runCommand(ip, ['link', 'set', net.hostVeth, 'up']);
    this.logger.debug({ serverId: net.serverId, netns: net.netns, address: net.gameAddress }, 'made the game\'s network namespace');
  }

  /**
   * The veth first: deleting it takes the pair at once, where a deleted namespace frees its end
   * only later (and never while something still holds the namespace), too late for the next start.
   */
  private async clear(net: GameNet): Promise<void> {
    if (await exists(`/sys/class/net/${net.hostVeth}`)) await runCommand(this.tools.ip, ['link', 'del', net.hostVeth]);
    if (await exists(netnsPath(net.netns))) await runCommand(this.tools.ip, ['netns', 'del', net.netns]);
  }

  private async save(net: GameNet): Promise<void> {
    const file = netFile(this.dataDir, net.serverId);
    await writeFile(`${file}.tmp`, JSON.stringify(net), { mode: 0o600 });
    await rename(`${file}.tmp`, file);
  }

  private async render(): Promise<void> {
    await runCommand(this.tools.nft, ['-f', '-'], nodeTable([...this.games.values()], this.rules));
  }
}

async function writeIfPresent(path: string): Promise<void> {
  if (await exists(path)) await writeFile(path, '1');
}
