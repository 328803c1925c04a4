import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { nodeTableName, type GameNet } from '../../src/agent/isolation/game-net-plan.js';
import type { PortRange } from '../../src/shared/link/messages.js';

const run = promisify(execFile);
const quietly = (command: string, args: string[]) => run(command, args, { timeout: 10_000 }).then(() => true, () => false);

/** The games' networks an Agent data dir records (`net.json` of each server). */
export async function gameNetworksOf(agentDataDir: string): Promise<GameNet[]> {
  const servers = await readdir(join(agentDataDir, 'servers')).catch(() => [] as string[]);
  const nets = await Promise.all(servers.map((id) => readFile(join(agentDataDir, 'servers', id, 'net.json'), 'utf8').then((t) => JSON.parse(t) as GameNet, () => null)));
  return nets.filter((n): n is GameNet => n !== null);
}

/**
 * Removes what a boxed Agent made on the host for its games' networks (tests leave nothing behind):
 * each recorded namespace and veth, and the Agent's nftables table. Call before the data dir goes.
 */
export async function removeGameNetworks(agentDataDir: string, gamePorts: PortRange): Promise<void> {
  for (const net of await gameNetworksOf(agentDataDir)) {
    await quietly('ip', ['netns', 'del', net.netns]);
    await quietly('ip', ['link', 'del', net.hostVeth]);
  }
  await quietly('nft', ['delete', 'table', 'ip', nodeTableName(gamePorts)]);
}
