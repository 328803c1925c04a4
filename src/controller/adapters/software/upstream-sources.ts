import type { UpstreamVersionsSpec, VersionSource } from '../../../shared/templates.js';

/** Where each upstream answers: PaperMC's Fill v3 root and Mojang's version manifest. */
export type UpstreamBases = Record<VersionSource, string>;

export const defaultUpstreamBases: UpstreamBases = {
  papermc: 'https://fill.papermc.io/v3',
  mojang: 'https://piston-meta.mojang.com/mc/game/version_manifest_v2.json',
};

/** The key a listing is kept under: `papermc:<project>` or `mojang`. */
export const listingKey = (spec: UpstreamVersionsSpec): string => (spec.source === 'papermc' ? `papermc:${spec.project ?? 'paper'}` : 'mojang');

/** `papermc=URL` and `mojang=URL` entries (flags or a comma-separated env value) over the defaults; undefined and the problem when one is wrong. */
export function parseUpstreamBases(entries: readonly string[]): { bases: UpstreamBases } | { problem: string } {
  const bases = { ...defaultUpstreamBases };
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    const name = entry.slice(0, eq).trim();
    const url = entry.slice(eq + 1).trim();
    if (eq < 0 || (name !== 'papermc' && name !== 'mojang')) return { problem: `"${entry}": give papermc=URL or mojang=URL` };
    if (!/^https?:\/\/\S+$/.test(url)) return { problem: `"${entry}": the URL must start with http:// or https://` };
    bases[name] = url;
  }
  return { bases };
}
