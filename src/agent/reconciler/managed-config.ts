import type { ServerNetwork } from '../../shared/link/messages.js';
import { PropertiesFile } from '../../shared/properties-file.js';
import type { SimproxyConfigSpec } from '../../shared/simproxy-config.js';
import { resolveManagedConfig, type PlaceholderValues, type Template } from '../../shared/templates.js';
import type { GameIdentity } from '../isolation/game-identity.js';
import { renderVelocityToml } from '../network/velocity-toml.js';
import { readInRoot, writeInRoot } from '../files/root-files.js';

/** Where a proxy sends players; none for a proxy that has not been told yet. */
const routesOf = (network: ServerNetwork | null | undefined) => network?.routes ?? [];

/**
 * Writes the keys Cairn manages into the template's config file, so the process always binds
 * the port the Controller assigned and a proxy knows its routes. `extra` adds entries for this
 * start (a member's network settings). Everything else in the file is the operator's and stays.
 * The file is replaced atomically: a proxy re-reading it never sees half of it. What is written
 * is owned by `owner` when games run as their own user.
 */
export async function writeManagedConfig(
  template: Template, values: PlaceholderValues, serverDir: string, network: ServerNetwork | null | undefined, extra: Record<string, string> = {},
  owner?: GameIdentity | null,
): Promise<void> {
  const managed = resolveManagedConfig(template, values);
  // The template names the keys it manages: `bind` and `port` may be absent.
  const optional: Partial<Record<string, string>> = managed;
  const file = template.config.file;
  const current = await readInRoot(serverDir, file);
  switch (template.config.format) {
    case 'properties': {
      const properties = PropertiesFile.parse(current);
      for (const [key, value] of Object.entries({ ...managed, ...extra })) properties.set(key, value);
      await writeInRoot(serverDir, file, properties.toString(), { owner });
      return;
    }
    case 'simproxy-json': {
      const lobby = network?.lobbyServerId;
      const config: SimproxyConfigSpec = {
        bind: optional.bind ?? values.bindAddress, port: Number(optional.port ?? values.port), routes: routesOf(network), ...(lobby ? { lobbyServerId: lobby } : {}),
      };
      await writeInRoot(serverDir, file, JSON.stringify(config, null, 2) + '\n', { owner });
      return;
    }
    case 'velocity-toml': {
      const forwardingSecretFile = template.network?.forwardingSecret?.file ?? 'forwarding.secret';
      await writeInRoot(serverDir, file, renderVelocityToml(current, { bind: optional.bind ?? `${values.bindAddress}:${values.port}`, routes: routesOf(network), forwardingSecretFile }), { owner });
      return;
    }
  }
}
