import { readdir, readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../shared/logger.js';
import { installationPaths } from '../../shared/programs.js';
import { isValidServerId } from '../runtime/state-dir.js';
import type { ViewEntry } from './box-command.js';
import type { PortRange } from '../../shared/link/messages.js';
import { GameBoxes } from './game-boxes.js';
import { GameNetwork } from './game-net.js';
import type { EgressRule } from '../../shared/egress-rule.js';
import { nameserversOf } from './game-net-plan.js';
import { GameIdentities } from './game-identities.js';
import { hostDirs } from './host-dirs.js';
import { refuseHeldIds } from './host-ids.js';
import type { UidRange } from './game-uids.js';
import type { IsolationMode } from './isolation-mode.js';
import { probeIsolation, type IsolationPlan } from './isolation-probe.js';
import { claimGameUids } from './uid-claims.js';
import { extraEntries, installationOf, systemViewEntries } from './view-paths.js';

export interface BoxSettings {
  dataDir: string;
  isolation: IsolationMode;
  gameUids: UidRange;
  /** The launchers of the Java installations found: each installation joins every view. */
  javas: readonly string[];
  /** Where games' ports are published, and which: a game's own network leads these to it. */
  bindAddress: string;
  gamePorts: PortRange;
  /** What a game in its own network may reach beyond the internet (`--game-egress-allow`). */
  gameEgressAllow: readonly EgressRule[];
}

/**
 * The part of every view that is not the system: this Node.js, the Javas, and this installation's
 * code. A linked node_modules (a checkout sharing another's) is bound where it really is too: the
 * launchers import their packages by real path.
 */
async function viewBase(javas: readonly string[]): Promise<ViewEntry[]> {
  const system = await systemViewEntries();
  const runtimes = (await Promise.all([process.execPath, ...javas].map(installationOf))).filter((p): p is string => p !== null);
  // Code resolves its imports by real path: a node_modules that is a link (a worktree's, pnpm's) is bound where it leads too.
  const installed = installationPaths();
  const real = await Promise.all(installed.map((p) => realpath(p).catch(() => p)));
  return [...system, ...(await extraEntries(system, [...runtimes, ...new Set([...installed, ...real])]))];
}

/**
 * The Agent's boxes: the probe of what this host can enforce, the uids kept in the data dir, and
 * the view's fixed part. Servers already on disk get their uid now (an upgrade in place); their
 * files become theirs at their next start. Games of their own uids need a range nobody else on the
 * host holds: one of the host's accounts, or another Agent's (GameUidsRefusedError).
 */
export async function boxesForAgent(settings: BoxSettings, logger: Logger): Promise<GameBoxes> {
  const plan = await probeIsolation(settings.isolation);
  const dirs = hostDirs();
  if (plan.support.users) await refuseHeldIds(settings.gameUids, dirs.etc);
  const claim = plan.support.users ? await claimGameUids(dirs.claims, settings.dataDir, settings.gameUids) : null;
  const identities = plan.support.users ? await GameIdentities.load(settings.dataDir, settings.gameUids) : null;
  const network = await gameNetwork(plan, settings, logger);
  const boxes = new GameBoxes(plan, identities, plan.support.filesystem ? await viewBase(settings.javas) : [], logger, claim, network);
  const fields = { event: 'isolation', mode: plan.mode, ...plan.support, ...(plan.cgroups ? { cgroup: `v${plan.cgroups.version}` } : {}) };
  if (plan.mode !== 'off' && plan.missing.length > 0) logger.warn({ ...fields, missing: plan.missing }, boxes.nodeCondition('')?.message ?? 'isolation is incomplete');
  else logger.info(fields, plan.mode === 'off' ? 'games run unboxed (--isolation off)' : 'games run in their own box');
  const servers = await readdir(join(settings.dataDir, 'servers')).catch(() => [] as string[]);
  for (const serverId of servers.filter(isValidServerId)) await boxes.adopt(serverId);
  return boxes;
}

/** Games' own networks, with the Node's table rendered from what runs; a table the kernel refuses leaves games on the host's network. */
async function gameNetwork(plan: IsolationPlan, settings: BoxSettings, logger: Logger): Promise<GameNetwork | null> {
  if (!plan.net) return null;
  const nameservers = nameserversOf(await readFile('/etc/resolv.conf', 'utf8').catch(() => ''));
  const rules = { bindAddress: settings.bindAddress, gamePorts: settings.gamePorts, egressAllow: settings.gameEgressAllow, nameservers };
  try {
    return await GameNetwork.load(plan.net, rules, settings.dataDir, logger);
  } catch (e) {
    plan.missing.push(`games' own networks could not be set up, so games share the Node's network (${(e as Error).message.split('\n')[0]})`);
    plan.support.network = false;
    plan.net = null;
    return null;
  }
}
