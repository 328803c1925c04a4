import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseDocument } from 'yaml';
import type { Template } from '../../shared/templates.js';
import { cairnDirName } from '../reconciler/installer.js';
import { readText } from '../reconciler/managed-config.js';
import type { ServerTarget } from '../reconciler/server-target.js';
import { writeFileAtomic } from '../runtime/state-dir.js';

/** Present while the server's last start was as a network member: what a start after leaving undoes. */
const memberMarker = (serverDir: string) => join(serverDir, cairnDirName, 'network-member');

const exists = (path: string) => access(path).then(() => true, () => false);

/** Paper's `proxies.velocity` section: on with the network's secret, or off again. */
async function setPaperForwarding(path: string, secret: string | undefined): Promise<void> {
  const doc = parseDocument(await readText(path));
  doc.setIn(['proxies', 'velocity', 'enabled'], secret !== undefined);
  doc.setIn(['proxies', 'velocity', 'online-mode'], true);
  doc.setIn(['proxies', 'velocity', 'secret'], secret ?? '');
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, doc.toString(), 0o600);
}

/**
 * Writes the network's files for this start and answers the config entries to write with the
 * managed ones. A proxy gets the forwarding secret in its secret file. A member gets the
 * template's `memberConfig` (Paper: `online-mode=false`, the proxy authenticates players) and the
 * secret where its software reads it (Paper: `config/paper-global.yml`); the first start after it
 * left the network switches forwarding off and writes `standaloneConfig`, so a server players
 * reach directly authenticates them again. The secret goes into those files only, never a log.
 */
export async function networkSettingsForStart(template: Template, target: ServerTarget, serverDir: string): Promise<Record<string, string>> {
  const spec = template.network;
  const secret = target.network?.forwardingSecret || undefined;
  if (!spec) return {};
  if (template.kind === 'PROXY') {
    if (spec.forwardingSecret && secret) await writeFileAtomic(join(serverDir, spec.forwardingSecret.file), secret, 0o600);
    return {};
  }
  const forwarding = spec.forwardingSecret?.format === 'paper-global-yaml' ? join(serverDir, spec.forwardingSecret.file) : undefined;
  if (target.inNetwork && secret) {
    if (forwarding) await setPaperForwarding(forwarding, secret);
    return spec.memberConfig ?? {};
  }
  if (!(await exists(memberMarker(serverDir)))) return {};
  if (forwarding) await setPaperForwarding(forwarding, undefined);
  return spec.standaloneConfig ?? {};
}

/** Records whether this start was as a member, once its config is written. */
export async function recordMembership(serverDir: string, target: ServerTarget): Promise<void> {
  if (target.inNetwork && target.network?.forwardingSecret) await writeFile(memberMarker(serverDir), '');
  else await rm(memberMarker(serverDir), { force: true });
}
