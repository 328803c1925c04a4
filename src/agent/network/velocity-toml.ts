import { parse, stringify, type TomlTable } from 'smol-toml';
import type { NetworkRoute } from '../../shared/link/messages.js';

/** What Cairn owns in velocity.toml; every other key is the operator's and is kept. */
export interface VelocityManaged {
  /** `host:port` the proxy listens on. */
  bind: string;
  /** The members to send players to, in the order to try them (lobby first). */
  routes: readonly NetworkRoute[];
  /** The file, relative to the proxy's directory, that holds the modern-forwarding secret. */
  forwardingSecretFile: string;
}

/** What a fresh velocity.toml starts from; Velocity fills in the rest of its defaults. */
const freshConfig = (): TomlTable => ({ 'config-version': '2.7' });

/**
 * Velocity names each backend server; `try` is a key of the same table, and the names end up in
 * commands (`/server <name>`). So: lower-case letters, digits, `-` and `_`, never `try`, and a
 * member whose name is taken gets its id's first eight characters appended.
 */
export function velocityServerNames(routes: readonly NetworkRoute[]): string[] {
  const taken = new Set(['try']);
  return routes.map((r) => {
    const base = r.name.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'server';
    const name = taken.has(base) ? `${base}-${r.serverId.slice(0, 8).toLowerCase()}` : base;
    taken.add(name);
    return name;
  });
}

const hostPort = (address: string, port: number) => (address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`);

/**
 * velocity.toml with Cairn's part rendered in: the bind address, modern player-info forwarding
 * with the network's secret file, `[servers]` holding exactly the routes with `try` in their
 * order, and no forced hosts (they could name servers that are not routed to, which Velocity
 * refuses to start with). The operator's other settings stay; comments do not survive the
 * rewrite. Throws when the existing file is not valid TOML.
 */
export function renderVelocityToml(existing: string, managed: VelocityManaged): string {
  const config = existing.trim() === '' ? freshConfig() : parse(existing);
  const names = velocityServerNames(managed.routes);
  config.bind = managed.bind;
  config['player-info-forwarding-mode'] = 'modern';
  config['forwarding-secret-file'] = managed.forwardingSecretFile;
  config.servers = {
    ...Object.fromEntries(managed.routes.map((r, i) => [names[i], hostPort(r.address, r.port)])),
    try: names,
  };
  config['forced-hosts'] = {};
  return stringify(config) + '\n';
}
