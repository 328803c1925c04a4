import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerNetwork } from '../../shared/link/messages.js';
import { PropertiesFile } from '../../shared/properties-file.js';
import type { SimproxyConfigSpec } from '../../shared/simproxy-config.js';
import { resolveManagedConfig, type PlaceholderValues, type Template } from '../../shared/templates.js';
import { renderVelocityToml } from '../network/velocity-toml.js';
import { writeFileAtomic } from '../runtime/state-dir.js';

export async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw e;
  }
}

/** Where a proxy sends players; none for a proxy that has not been told yet. */
const routesOf = (network: ServerNetwork | null | undefined) => network?.routes ?? [];

/**
 * Writes the keys Cairn manages into the template's config file, so the process always binds
 * the port the Controller assigned and a proxy knows its routes. `extra` adds entries for this
 * start (a member's network settings). Everything else in the file is the operator's and stays.
 * The file is replaced atomically: a proxy re-reading it never sees half of it.
 */
export async function writeManagedConfig(
  template: Template, values: PlaceholderValues, serverDir: string, network: ServerNetwork | null | undefined, extra: Record<string, string> = {},
): Promise<void> {
  const managed = resolveManagedConfig(template, values);
  // The template names the keys it manages: `bind` and `port` may be absent.
  const optional: Partial<Record<string, string>> = managed;
  const path = join(serverDir, template.config.file);
  const current = await readText(path);
  switch (template.config.format) {
    case 'properties': {
      const file = PropertiesFile.parse(current);
      for (const [key, value] of Object.entries({ ...managed, ...extra })) file.set(key, value);
      await writeFileAtomic(path, file.toString(), 0o644);
      return;
    }
    case 'simproxy-json': {
      const lobby = network?.lobbyServerId;
      const config: SimproxyConfigSpec = {
        bind: optional.bind ?? values.bindAddress, port: Number(optional.port ?? values.port), routes: routesOf(network), ...(lobby ? { lobbyServerId: lobby } : {}),
      };
      await writeFileAtomic(path, JSON.stringify(config, null, 2) + '\n', 0o644);
      return;
    }
    case 'velocity-toml': {
      const forwardingSecretFile = template.network?.forwardingSecret?.file ?? 'forwarding.secret';
      await writeFileAtomic(path, renderVelocityToml(current, { bind: optional.bind ?? `${values.bindAddress}:${values.port}`, routes: routesOf(network), forwardingSecretFile }), 0o644);
      return;
    }
  }
}
