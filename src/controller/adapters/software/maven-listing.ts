import { compareGameVersions } from '../../../shared/game-versions.js';
import type { ListedVersionRecord } from '../../schemas/software.js';
import { buildsKept } from './papermc-listing.js';
import { fetchUpstreamJson, fetchUpstreamText, UpstreamError } from './upstream-http.js';

/** A loader version of the Maven metadata, read as the game version it is for. */
export interface LoaderVersion {
  game: string;
  /** The loader version, as `software.build`. */
  loader: string;
  stable: boolean;
  /** The Maven version (the artifact's folder and file names). */
  maven: string;
}

type Installer = 'neoforge' | 'forge';
const artifactPath: Record<Installer, string> = { neoforge: 'net/neoforged/neoforge', forge: 'net/minecraftforge/forge' };

/**
 * NeoForge numbers its loader after the game: `21.4.136` is for 1.21.4, `21.0.167` for 1.21, a
 * `-beta` suffix marks a build not called stable. Versions of any other shape (the April-fools
 * snapshots' `0.25w14craftmine.3-beta`) are not for a release and are left out.
 */
export function neoforgeVersion(maven: string): LoaderVersion | undefined {
  const m = /^([1-9]\d*)\.(\d+)\.(\d+)(-beta)?$/.exec(maven);
  if (!m) return undefined;
  return { game: m[2] === '0' ? `1.${m[1]}` : `1.${m[1]}.${m[2]}`, loader: maven, stable: !m[4], maven };
}

/**
 * Forge's Maven versions are `<game>-<loader>` (`1.21.4-54.0.12`). The oldest carry a third part
 * (`1.7.10-10.13.4.1614-1.7.10`) or a pre-release game (`1.7.10_pre4-…`): left out. Forge marks
 * no build unstable in Maven; its promotions say which is recommended.
 */
export function forgeVersion(maven: string): LoaderVersion | undefined {
  const m = /^(1\.\d+(?:\.\d+)?)-(\d+(?:\.\d+)+)$/.exec(maven);
  return m ? { game: m[1], loader: m[2], stable: true, maven } : undefined;
}

/**
 * The `<version>` elements of `maven-metadata.xml` (`<metadata><versioning><versions>`). The file
 * has this one fixed shape, and a version is a plain token: a strict pattern reads it without an
 * XML parser (none is among the dependencies), and an answer without the element is refused.
 */
export function mavenVersions(xml: string, url: string): string[] {
  const block = /<versions>([\s\S]*?)<\/versions>/.exec(xml);
  if (!/<metadata[\s>]/.test(xml) || !block) throw new UpstreamError(`${url} answered no <metadata><versioning><versions> element`);
  return [...block[1].matchAll(/<version>\s*([A-Za-z0-9][A-Za-z0-9._+-]{0,63})\s*<\/version>/g)].map((m) => m[1]);
}

/** The installer jar of a Maven version, as the repository lays it out. */
export function installerUrl(root: string, kind: Installer, maven: string): string {
  const name = kind === 'neoforge' ? 'neoforge' : 'forge';
  return `${root}/${artifactPath[kind]}/${encodeURIComponent(maven)}/${name}-${encodeURIComponent(maven)}-installer.jar`;
}

/** Forge's `promotions_slim.json` (`{promos: {"1.21.4-recommended": "54.0.6", …}}`); none when it does not answer. */
async function forgePromotions(root: string, signal?: AbortSignal): Promise<Record<string, string>> {
  try {
    const answer = await fetchUpstreamJson(`${root}/${artifactPath.forge}/promotions_slim.json`, signal) as { promos?: unknown };
    const promos = answer.promos;
    if (!promos || typeof promos !== 'object') return {};
    return Object.fromEntries(Object.entries(promos).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch (e) {
    if (e instanceof UpstreamError) return {};
    throw e;
  }
}

/**
 * NeoForge's or Forge's versions from the Maven repository at `base`: one game version per
 * listed item, newest first, its builds the loader versions for it (newest first, the newest 25),
 * each downloading its installer jar. The installer's checksum is fetched (from its `.sha256` or
 * `.sha1`) when a server is first given the build, not per build here. Java from Mojang's listing.
 * The default build is the newest stable one (Forge: its promotions' recommended, else latest).
 */
export async function listMavenLoader(kind: Installer, base: string, mojang: readonly ListedVersionRecord[], signal?: AbortSignal): Promise<ListedVersionRecord[]> {
  const root = base.replace(/\/+$/, '');
  const url = `${root}/${artifactPath[kind]}/maven-metadata.xml`;
  const read = kind === 'neoforge' ? neoforgeVersion : forgeVersion;
  const loaders = mavenVersions(await fetchUpstreamText(url, 'application/xml, text/xml', signal), url)
    .map(read).filter((v): v is LoaderVersion => v !== undefined);
  const promos = kind === 'forge' ? await forgePromotions(root, signal) : {};
  const byGame = new Map<string, LoaderVersion[]>();
  for (const v of loaders) byGame.set(v.game, [...(byGame.get(v.game) ?? []), v]);
  const java = new Map(mojang.map((v) => [v.version, v.java]));
  return [...byGame.entries()].sort(([a], [b]) => compareGameVersions(b, a)).map(([game, all]) => {
    const builds = all.sort((a, b) => compareGameVersions(b.loader, a.loader)).slice(0, buildsKept);
    const promoted = [promos[`${game}-recommended`], promos[`${game}-latest`]].find((p) => p && builds.some((b) => b.loader === p));
    const minimum = java.get(game);
    return {
      version: game,
      ...(minimum ? { java: minimum } : {}),
      latestBuild: promoted ?? (builds.find((b) => b.stable) ?? builds[0]).loader,
      builds: builds.map((b) => ({ id: b.loader, channel: b.stable ? 'STABLE' : 'BETA', download: { url: installerUrl(root, kind, b.maven) } })),
    };
  });
}
