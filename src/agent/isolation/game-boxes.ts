import type { EgressRule } from '../../shared/egress-rule.js';
import type { Logger } from '../../shared/logger.js';
import type { LaunchSpec, ShimBox } from '../runtime/launch-spec.js';
import { removeGroup } from '../runtime/cgroup-files.js';
import { boxedCommand, type ViewEntry } from './box-command.js';
import { prepareServerGroup, serverGroupDirs, type CgroupLimits } from './cgroups.js';
import type { GameIdentities } from './game-identities.js';
import type { GameNetwork } from './game-net.js';
import type { GameIdentity } from './game-identity.js';
import { isolationUnavailableMessage, isolationUnavailableReason, noIsolation } from './isolation-mode.js';
import type { IsolationPlan } from './isolation-probe.js';
import { ownTree } from './own-tree.js';
import type { HeldUidClaim } from './uid-claims.js';
import { extraEntries, installationOf } from './view-paths.js';
import { openWayTo } from './way-in.js';
import { softwareBeside, softwareMountPoint } from '../reconciler/server-paths.js';

/** A launch as the box turns it: the command that enters the box, and what the shim must know of it. */
export interface BoxedLaunch {
  launch: LaunchSpec;
  box?: ShimBox;
}

/**
 * Puts each game in its box (contract: "Containment"): its uid, its view and its cgroup, as far
 * as the probe found this host able to. With nothing to enforce, launches pass through untouched.
 */
export class GameBoxes {
  constructor(
    readonly plan: IsolationPlan,
    /** Null when games run as the Agent's user (`--isolation off`, or a host that cannot switch users). */
    private readonly identities: GameIdentities | null,
    /** The system and runtime part of every view (the server's own directory is added per start). */
    private readonly viewBase: readonly ViewEntry[],
    private readonly logger: Logger,
    /** This Agent's hold on its uid range among the host's Agents, while games run as their own uids. */
    private readonly uidClaim: HeldUidClaim | null = null,
    /** Games' own networks; null when games share the host's. */
    private readonly network: GameNetwork | null = null,
  ) {}

  /** Boxes that box nothing: `--isolation off`. */
  static off(logger: Logger): GameBoxes {
    return new GameBoxes({ mode: 'off', support: noIsolation, missing: [], bwrap: null, setpriv: null, cgroups: null, net: null }, null, [], logger);
  }

  /** Why games are not started at all here (`--isolation required` without the whole box); null when they may be. */
  get refusal(): string | null {
    return this.plan.mode === 'required' && this.plan.missing.length > 0 ? isolationUnavailableMessage('required', this.plan.missing) : null;
  }

  /** The Node's ISOLATION_UNAVAILABLE condition, while part of the box is missing. */
  nodeCondition(since: string): { id: string; reason: string; message: string; since: string } | null {
    if (this.plan.mode === 'off' || this.plan.missing.length === 0) return null;
    return { id: 'isolation-unavailable', reason: isolationUnavailableReason, message: isolationUnavailableMessage(this.plan.mode, this.plan.missing), since };
  }

  /** The server's identity, when games here run as their own. */
  identityOf(serverId: string): GameIdentity | null {
    return this.identities?.get(serverId) ?? null;
  }

  /** Gives the server an identity now (existing servers at the first start with isolation). */
  async adopt(serverId: string): Promise<void> {
    await this.identities?.ensure(serverId);
  }

  /**
   * The boxed form of a launch. The server's directory becomes its identity's first, so what the
   * Agent wrote since the last run is the game's; the cgroup and the network namespace (its
   * `ports` published) are made fresh.
   */
  async box(serverId: string, serverDir: string, limits: CgroupLimits, ports: readonly number[], launch: LaunchSpec): Promise<BoxedLaunch> {
    const { support, cgroups } = this.plan;
    if (!support.users && !support.memory && !support.cpu && !support.pids) return { launch };
    const identity = this.identities ? await this.identities.ensure(serverId) : null;
    if (identity) {
      const changed = await ownTree(serverDir, identity);
      if (changed > 0) this.logger.debug({ serverId, changed, uid: identity.uid }, 'gave the server\'s files to its identity');
    }
    const group = cgroups && (support.memory || support.cpu || support.pids) ? await prepareServerGroup(cgroups, serverId, limits) : null;
    const view = this.viewed
      ? { bwrap: this.plan.bwrap!, entries: [...this.viewBase, ...(await this.commandEntries(launch.command))], serverDir, software: { from: softwareBeside(serverDir), at: softwareMountPoint(serverDir) } }
      : null;
    if (identity && !view) await openWayTo(serverDir, identity);
    // A game without a port (none is published) has nothing to be reached on: it keeps the host's network.
    const netns = this.network && view && ports.length > 0 ? { nsenter: this.plan.net!.nsenter, path: await this.network.prepare(serverId, ports) } : null;
    const command = boxedCommand({ identity, setpriv: this.plan.setpriv, view, procsFiles: group?.procsFiles ?? [], netns }, launch.command, launch.args);
    return {
      launch: { ...launch, ...command, env: view || identity ? boxedEnv(launch.env, serverDir) : launch.env },
      box: { view: view !== null, oomFile: group?.oomFile ?? null, cgroupDirs: group?.dirs ?? [] },
    };
  }

  /** Whether games here run in a view of their own (bubblewrap). */
  private get viewed(): boolean {
    return this.plan.support.filesystem && this.plan.bwrap !== null;
  }

  /**
   * The address the server's game binds to: in a namespace of its own every address of it is the
   * game's, and the Node publishes its ports at `hostBind`. `starting` asks for the next game, else
   * for the one that runs (one adopted from before the upgrade keeps the host's network).
   */
  gameBindAddress(serverId: string, hostBind: string, starting: boolean): string {
    const own = this.network !== null && (starting || this.network.has(serverId));
    return own ? '0.0.0.0' : hostBind;
  }

  /** What the server's game may reach beyond the internet (`network.egressAllow`); nothing to hold where games share the host's network. */
  async allowEgress(serverId: string, rules: readonly EgressRule[]): Promise<void> {
    await this.network?.allow(serverId, rules);
  }

  /** The server's game ended: its ports lead nowhere until its next start. */
  async exited(serverId: string): Promise<void> {
    await this.network?.unpublish(serverId);
  }

  /** Where a game finds its installed software: bound at its root's `.cairn` in a view, else where it lies. */
  softwareSeenAt(root: string): string {
    return this.viewed ? softwareMountPoint(root) : softwareBeside(root);
  }

  /** The server is gone from this Node: its uid is free again, its cgroup and its network namespace go. */
  async forget(serverId: string): Promise<void> {
    await this.network?.remove(serverId);
    await this.identities?.release(serverId);
    if (this.plan.cgroups) for (const dir of serverGroupDirs(this.plan.cgroups, serverId)) await removeGroup(dir);
  }

  /** The Agent stops: another Agent may take its uid range. */
  async close(): Promise<void> {
    await this.uidClaim?.release();
  }

  /** A program the template runs from outside the system's directories (a JDK under /opt) is bound too. */
  private async commandEntries(command: string): Promise<ViewEntry[]> {
    const home = await installationOf(command);
    return home ? extraEntries(this.viewBase, [home]) : [];
  }
}

/** The system's own search path: the Agent's may name directories (its user's home) a box does not hold. */
const systemPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** What the template set, with HOME the server's root and, unless the template chose one, the system's PATH. */
function boxedEnv(env: Partial<Record<string, string>>, serverDir: string): Record<string, string> {
  const path = env.PATH === undefined || env.PATH === process.env.PATH ? systemPath : env.PATH;
  return { ...env, PATH: path, HOME: serverDir };
}
