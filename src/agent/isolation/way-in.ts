import { chmod, chown } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { GameIdentity } from './game-identity.js';

/**
 * A game run as its own uid without a view of its own (no bubblewrap) sees the host's tree, where
 * the Agent's data dir would bar it from its own root and software. It gets a way in and nothing
 * more: the data dir and `servers/` may be walked through but not listed (0711), and the server's
 * home only by its game's group (0710, group its gid). Every file the Agent keeps there is 0600
 * and every other directory 0700, so other servers' homes, the credential and the state stay shut.
 */
export async function openWayTo(root: string, identity: GameIdentity): Promise<void> {
  const home = dirname(root);
  const servers = dirname(home);
  await chown(home, 0, identity.gid);
  await chmod(home, 0o710);
  await chmod(servers, 0o711);
  await chmod(dirname(servers), 0o711);
}
