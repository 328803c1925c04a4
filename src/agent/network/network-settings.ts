import { access, lstat, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseDocument } from 'yaml';
import type { Template } from '../../shared/templates.js';
import type { GameIdentity } from '../isolation/game-identity.js';
import { readInRoot, writeInRoot } from '../files/root-files.js';
import type { ServerTarget } from '../reconciler/server-target.js';

/**
 * Present while the server's last start was as a network member: what a start after leaving
 * undoes. It sits beside the server's root, where its game cannot reach it (a marker in the
 * root could be swapped for a link, and the root Agent made to write through it).
 */
const memberMarker = (serverDir: string) => join(dirname(serverDir), 'network-member');
/** Where earlier versions kept the marker: inside the root's `.cairn`. */
const oldMemberMarker = 'network-member';

/**
 * Takes over the marker an earlier version left in the root's `.cairn`, now moved `aside` into
 * the server's home (out of the game's reach) on its way to removal.
 */
export async function adoptLegacyMemberMarker(root: string, aside: string): Promise<void> {
  const found = await lstat(join(aside, oldMemberMarker)).then((info) => info.isFile(), () => false);
  if (found) await writeFile(memberMarker(root), '', { mode: 0o600 });
}

const exists = (path: string) => access(path).then(() => true, () => false);

/** Paper's `proxies.velocity` section: on with the network's secret, or off again. */
async function setPaperForwarding(serverDir: string, file: string, secret: string | undefined, owner: GameIdentity | null | undefined): Promise<void> {
  const doc = parseDocument(await readInRoot(serverDir, file));
  doc.setIn(['proxies', 'velocity', 'enabled'], secret !== undefined);
  doc.setIn(['proxies', 'velocity', 'online-mode'], true);
  doc.setIn(['proxies', 'velocity', 'secret'], secret ?? '');
  await writeInRoot(serverDir, file, doc.toString(), { mode: 0o600, owner });
}

/** Whether the last start was as a member. */
const wasMember = (serverDir: string) => exists(memberMarker(serverDir));

/**
 * Writes the network's files for this start and answers the config entries to write with the
 * managed ones. A proxy gets the forwarding secret in its secret file. A member gets the
 * template's `memberConfig` (Paper: `online-mode=false`, the proxy authenticates players) and the
 * secret where its software reads it (Paper: `config/paper-global.yml`); the first start after it
 * left the network switches forwarding off and writes `standaloneConfig`, so a server players
 * reach directly authenticates them again. The secret goes into those files only, never a log;
 * they are written by the walk of the files API and owned by the server's identity.
 */
export async function networkSettingsForStart(template: Template, target: ServerTarget, serverDir: string, owner?: GameIdentity | null): Promise<Record<string, string>> {
  const spec = template.network;
  const secret = target.network?.forwardingSecret || undefined;
  if (!spec) return {};
  if (template.kind === 'PROXY') {
    if (spec.forwardingSecret && secret) await writeInRoot(serverDir, spec.forwardingSecret.file, secret, { mode: 0o600, owner });
    return {};
  }
  const forwarding = spec.forwardingSecret?.format === 'paper-global-yaml' ? spec.forwardingSecret.file : undefined;
  if (target.inNetwork && secret) {
    if (forwarding) await setPaperForwarding(serverDir, forwarding, secret, owner);
    return spec.memberConfig ?? {};
  }
  if (!(await wasMember(serverDir))) return {};
  if (forwarding) await setPaperForwarding(serverDir, forwarding, undefined, owner);
  return spec.standaloneConfig ?? {};
}

/** Records whether this start was as a member, once its config is written. */
export async function recordMembership(serverDir: string, target: ServerTarget): Promise<void> {
  if (target.inNetwork && target.network?.forwardingSecret) await writeFile(memberMarker(serverDir), '', { mode: 0o600 });
  else await rm(memberMarker(serverDir), { force: true });
}
