import type { UpstreamVersionsSpec, VersionSource } from '../../../shared/templates.js';

/**
 * Where each upstream answers: PaperMC's Fill v3 root, Mojang's version manifest, Fabric's meta API
 * v2 root, the Maven repositories of NeoForge and Forge, and Modrinth's API v2 root.
 */
export type UpstreamBases = Record<VersionSource, string>;

/** The plugin catalog's upstreams: Modrinth's API v2 root (shared with the software sources) and Hangar's API v1 root. */
export type CatalogBases = Pick<UpstreamBases, 'modrinth'> & { hangar: string };

/** Every `--software-source` base: the software upstreams and Hangar, which only the catalog reads. */
export type SourceBases = UpstreamBases & CatalogBases;

export const defaultUpstreamBases: SourceBases = {
  papermc: 'https://fill.papermc.io/v3',
  mojang: 'https://piston-meta.mojang.com/mc/game/version_manifest_v2.json',
  fabric: 'https://meta.fabricmc.net/v2',
  neoforge: 'https://maven.neoforged.net/releases',
  forge: 'https://maven.minecraftforge.net',
  modrinth: 'https://api.modrinth.com/v2',
  hangar: 'https://hangar.papermc.io/api/v1',
};

/** The key a listing is kept under: `papermc:<project>`, `mojang` or `fabric`. */
export const listingKey = (spec: UpstreamVersionsSpec): string => (spec.source === 'papermc' ? `papermc:${spec.project ?? 'paper'}` : spec.source);

const isSource = (name: string): name is keyof SourceBases => Object.hasOwn(defaultUpstreamBases, name);

/** `<source>=URL` entries (flags or a comma-separated env value) over the defaults; undefined and the problem when one is wrong. */
export function parseUpstreamBases(entries: readonly string[]): { bases: SourceBases } | { problem: string } {
  const bases = { ...defaultUpstreamBases };
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    const name = entry.slice(0, eq).trim();
    const url = entry.slice(eq + 1).trim();
    if (eq < 0 || !isSource(name)) return { problem: `"${entry}": give ${Object.keys(defaultUpstreamBases).map((n) => `${n}=URL`).join(', ')}` };
    if (!/^https?:\/\/\S+$/.test(url)) return { problem: `"${entry}": the URL must start with http:// or https://` };
    bases[name] = url;
  }
  return { bases };
}
