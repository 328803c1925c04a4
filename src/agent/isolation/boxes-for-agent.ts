import { readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../shared/logger.js';
import { installationPaths } from '../../shared/programs.js';
import { isValidServerId } from '../runtime/state-dir.js';
import type { ViewEntry } from './box-command.js';
import { GameBoxes } from './game-boxes.js';
import { GameIdentities } from './game-identities.js';
import { hostDirs } from './host-dirs.js';
import { refuseHeldIds } from './host-ids.js';
import type { UidRange } from './game-uids.js';
import type { IsolationMode } from './isolation-mode.js';
import { probeIsolation } from './isolation-probe.js';
import { claimGameUids } from './uid-claims.js';
import { extraEntries, installationOf, systemViewEntries } from './view-paths.js';

export interface BoxSettings {
  dataDir: string;
  isolation: IsolationMode;
  gameUids: UidRange;
  /** The launchers of the Java installations found: each installation joins every view. */
  javas: readonly string[];
}

/**
 * The part of every view that is not the system: this Node.js, the Javas, and this installation's
 * code. A linked node_modules (a checkout sharing another's) is bound where it really is too: the
 * launchers import their packages by real path.
 */
async function viewBase(javas: readonly string[]): Promise<ViewEntry[]> {
  const system = await systemViewEntries();
  const runtimes = (await Promise.all([process.execPath, ...javas].map(installationOf))).filter((p): p is string => p !== null);
  const code = installationPaths();
  const real = await Promise.all(code.map((path) => realpath(path).catch(() => path)));
  return [...system, ...(await extraEntries(system, [...runtimes, ...new Set([...code, ...real])]))];
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
  const boxes = new GameBoxes(plan, identities, plan.support.filesystem ? await viewBase(settings.javas) : [], logger, claim);
  const fields = { event: 'isolation', mode: plan.mode, ...plan.support, ...(plan.cgroups ? { cgroup: `v${plan.cgroups.version}` } : {}) };
  if (plan.mode !== 'off' && plan.missing.length > 0) logger.warn({ ...fields, missing: plan.missing }, boxes.nodeCondition('')?.message ?? 'isolation is incomplete');
  else logger.info(fields, plan.mode === 'off' ? 'games run unboxed (--isolation off)' : 'games run in their own box');
  const servers = await readdir(join(settings.dataDir, 'servers')).catch(() => [] as string[]);
  for (const serverId of servers.filter(isValidServerId)) await boxes.adopt(serverId);
  return boxes;
}
