import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ArtifactFetcher } from '../plugins/artifact-fetcher.js';
import { createInRoot } from '../files/root-files.js';
import type { DownloadArtifactSpec, Template } from '../../shared/templates.js';
import { builtinLauncherSource } from '../../shared/programs.js';
import { softwareBeside } from './server-paths.js';
import { prepareSoftwareMount } from './software-mount.js';
import { ArtifactSetError, installPack, installTree, readArtifactSet, type CachedArtifact } from './artifact-set-install.js';

const markerName = 'installed.json';

/**
 * Modes of the installed software: the game reads and runs it (its uid is neither the owner nor
 * in the group) and can change none of it. The download cache it is copied from stays 0600.
 */
const softwareDirMode = 0o755;
const softwareFileMode = 0o644;

export interface InstalledMarker {
  template: string;
  version: string;
  build?: string;
  installedAt: string;
}

export class InstallError extends Error {}

/** The software the server whose root is `root` holds, if it was installed completely. */
export async function readInstalled(root: string): Promise<InstalledMarker | undefined> {
  try {
    return JSON.parse(await readFile(join(softwareBeside(root), markerName), 'utf8')) as InstalledMarker;
  } catch {
    return undefined;
  }
}

async function hashFile(path: string, algorithm: 'sha256' | 'sha1'): Promise<string> {
  const hash = createHash(algorithm);
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

const nameOf = (artifact: DownloadArtifactSpec) => artifact.sha256 ?? artifact.sha1 ?? 'an artifact';

async function verify(path: string, artifact: DownloadArtifactSpec): Promise<void> {
  if (artifact.size !== undefined && (await stat(path)).size !== artifact.size) throw new InstallError(`size mismatch for ${nameOf(artifact)}`);
  if (artifact.sha256 && (await hashFile(path, 'sha256')) !== artifact.sha256) throw new InstallError(`sha256 mismatch for ${nameOf(artifact)}`);
  if (artifact.sha1 && (await hashFile(path, 'sha1')) !== artifact.sha1) throw new InstallError(`sha1 mismatch for ${nameOf(artifact)}`);
}

/** A file of the software, readable by the game whatever the mode it was made with (a cached copy is 0600). */
async function placeFile(path: string, fill: (path: string) => Promise<void>): Promise<void> {
  await fill(path);
  await chmod(path, softwareFileMode);
}

/**
 * Installs a template's software into the server's `software/` directory, beside its root where
 * the game cannot reach it; the game's view binds it read-only at `root/.cairn`. Vendor artifacts
 * come from the Controller over the link (the Node needs no internet), once per Node into a cache
 * keyed by checksum, verified before use (size, then sha256 or sha1), and copied in; a built-in
 * program gets its launcher. The marker file is removed first and written last, so a server whose
 * install was cut off is installed again. Seed files go into the root by the files API's walk.
 */
export class Installer {
  constructor(private readonly cacheDir: string, private readonly fetcher: Pick<ArtifactFetcher, 'fetch'>) {}

  async install(root: string, template: Template, version: string): Promise<InstalledMarker> {
    const software = softwareBeside(root);
    await mkdir(software, { recursive: true, mode: softwareDirMode });
    await chmod(software, softwareDirMode);
    // A reinstall cut off midway must not look like the software installed before it.
    await rm(join(software, markerName), { force: true });
    let build: string | undefined;
    if (template.install.source === 'upstream') {
      throw new InstallError(`${template.id}: the Controller sends an upstream's template with its artifact resolved`);
    } else if (template.install.source === 'tree') {
      await installTree(software, await this.readSet(template.install.tree), this.fromCache);
      build = template.install.build;
    } else if (template.install.source === 'builtin') {
      const source = builtinLauncherSource(template.install.program);
      await placeFile(join(software, template.install.file), (path) => writeFile(path, source));
    } else {
      // Any version may be asked for; the template has artifacts only for its own.
      const artifacts: Partial<Record<string, DownloadArtifactSpec>> = template.install.artifacts;
      const artifact = artifacts[version];
      if (!artifact) throw new InstallError(`${template.id} has no artifact for version ${version}`);
      const cached = await this.cached(artifact);
      await placeFile(join(software, template.install.file), (path) => copyFile(cached, path));
      // What the artifact runs beside it, so it never downloads anything at its start (Fabric's launcher: Mojang's server jar).
      for (const companion of template.install.companions ?? []) {
        const copy = await this.cached(companion);
        await placeFile(join(software, companion.file), (path) => copyFile(copy, path));
      }
      build = artifact.build;
    }
    // Makes the root too: a new server's pack files go into it.
    await prepareSoftwareMount(root);
    // With no pack, what an earlier pack placed is removed (a server moved from a modpack to its loader).
    await installPack(root, software, template.pack ? await this.readSet(template.pack) : [], this.fromCache).catch((e: unknown) => {
      throw e instanceof ArtifactSetError ? new InstallError(e.message) : e;
    });
    // Through the files API's walk: a directory of the game's swapped for a link never leads a seed outside.
    for (const seed of template.seedFiles ?? []) await createInRoot(root, seed.path, seed.content);
    const marker: InstalledMarker = { template: template.id, version, ...(build ? { build } : {}), installedAt: new Date().toISOString() };
    await placeFile(join(software, markerName), (path) => writeFile(path, JSON.stringify(marker, null, 2) + '\n'));
    return marker;
  }

  private readonly fromCache: CachedArtifact = (artifact) => this.cached(artifact);

  private async readSet(ref: { sha256: string; size: number }) {
    try {
      return await readArtifactSet(ref, this.fromCache);
    } catch (e) {
      throw e instanceof ArtifactSetError ? new InstallError(e.message) : e;
    }
  }

  /** Puts the verified artifact in the download cache (fetched only when missing), so a later install finds it there. */
  async prefetch(artifact: DownloadArtifactSpec): Promise<void> {
    await this.cached(artifact);
  }

  private async cached(artifact: Omit<DownloadArtifactSpec, 'url'>): Promise<string> {
    await mkdir(this.cacheDir, { recursive: true });
    const key = artifact.sha256 ?? artifact.sha1;
    if (!key) throw new InstallError('an artifact without a checksum is never installed');
    const path = join(this.cacheDir, key);
    try {
      await verify(path, artifact);
      return path;
    } catch {
      // Not cached yet, or a damaged copy: download again.
    }
    const partial = `${path}.partial`;
    try {
      await this.fetcher.fetch(artifact, partial);
      await verify(partial, artifact);
    } catch (e) {
      await rm(partial, { force: true });
      throw e instanceof InstallError ? e : new InstallError((e as Error).message);
    }
    await rename(partial, path);
    return path;
  }
}
