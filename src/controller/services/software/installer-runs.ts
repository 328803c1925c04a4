import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import { ArtifactUnavailableError, type ArtifactStore } from '../../adapters/software/artifact-store.js';
import { runInstallerProcess } from '../../adapters/software/installer-process.js';
import { fetchUpstreamText, UpstreamError } from '../../adapters/software/upstream-http.js';
import type { InstallerOutputRecord } from '../../schemas/installer-output.js';
import type { ArtifactDownloadSpec, ListedVersionRecord } from '../../schemas/software.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import { installerFile, OutputRefused, storeInstallerOutput } from './installer-output.js';

export type InstallerSource = 'neoforge' | 'forge';

export interface InstallerOptions {
  /** The Java the Controller runs installers with (`--installer-java`; default `java` on PATH). */
  java: string;
  /** How long an installer may run (`--installer-timeout`; default 10 minutes). */
  deadlineMs: number;
}

export const defaultInstallerOptions: InstallerOptions = { java: 'java', deadlineMs: 10 * 60_000 };

/** Why a choice's installer could not give software, in words for the refusal. */
export class InstallerFailure extends Error {}

const names: Record<InstallerSource, string> = { neoforge: 'NeoForge', forge: 'Forge' };
const settingId = (source: InstallerSource) => `software-installs:${source}`;
const keyOf = (game: string, loader: string) => `${game} ${loader}`;

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/**
 * NeoForge's and Forge's installers, run on the Controller (never on a Node) once per game
 * version, loader and installer jar: the jar checked against the repository's published
 * checksum, run in a temporary directory (sandboxed, with a deadline), its output stored as one
 * file set. What each run left is kept in the store (one document per source), so neither a
 * restart nor another Controller on the store runs it again.
 */
export class InstallerRuns {
  private readonly outputs = new Map<InstallerSource, Map<string, InstallerOutputRecord>>();
  private readonly running = new KeyedMutex();

  constructor(
    private readonly deps: Pick<ServiceDeps, 'repos' | 'clock' | 'logger'>,
    private readonly store: Pick<ArtifactStore, 'ensureDownload' | 'adopt' | 'tempPath'>,
    private readonly options: InstallerOptions = defaultInstallerOptions,
  ) {}

  async load(source: InstallerSource): Promise<void> {
    const stored = (await this.deps.repos.settings.findById(settingId(source)))?.value as { installs: InstallerOutputRecord[] } | undefined;
    const byKey = new Map<string, InstallerOutputRecord>();
    for (const run of stored?.installs ?? []) byKey.set(keyOf(run.game, run.loader), run);
    this.outputs.set(source, byKey);
  }

  /** The listing with each build whose installer ran carrying its output (and the installer's sha256). */
  applyTo(source: InstallerSource, versions: readonly ListedVersionRecord[]): ListedVersionRecord[] {
    const byKey = this.outputs.get(source);
    if (!byKey?.size) return [...versions];
    return versions.map((v) => !v.builds ? v : {
      ...v,
      builds: v.builds.map((b) => {
        const installed = byKey.get(keyOf(v.version, b.id));
        return installed ? { ...b, sha256: installed.installerSha256, installed } : b;
      }),
    });
  }

  /**
   * Runs the build's installer unless its output is stored already (here, or by another
   * Controller on the store); one run per build at a time. Throws InstallerFailure with the reason.
   */
  async prepare(source: InstallerSource, game: string, build: { id: string; download: ArtifactDownloadSpec }): Promise<void> {
    const key = keyOf(game, build.id);
    await this.running.run(`${source} ${key}`, async () => {
      if (this.outputs.get(source)?.has(key)) return;
      await this.load(source);
      if (this.outputs.get(source)?.has(key)) return;
      const what = `the ${names[source]} installer ${build.id} for ${game}`;
      const installer = await this.fetchInstaller(what, build.download.url);
      const run = await this.run(what, source, installer.path);
      const record: InstallerOutputRecord = { game, loader: build.id, installerSha256: installer.sha256, ...run, ranAt: nowIso(this.deps) };
      this.outputs.get(source)!.set(key, record);
      // A list, not a map by versions: store keys cannot hold the dots of a version.
      const value = { installs: [...this.outputs.get(source)!.values()] };
      const updated = await this.deps.repos.settings.update({ _id: settingId(source) }, { value, updatedAt: record.ranAt });
      if (updated === 0) await this.deps.repos.settings.insert({ _id: settingId(source), value, updatedAt: record.ranAt });
    });
  }

  /** The installer jar in the artifact store, checked against its published `.sha256` (else `.sha1`). */
  private async fetchInstaller(what: string, url: string): Promise<{ path: string; sha256: string }> {
    let download: ArtifactDownloadSpec;
    try {
      download = { url, sha256: await this.publishedSum(url, 'sha256') };
    } catch (e256) {
      if (!(e256 instanceof UpstreamError)) throw e256;
      try {
        download = { url, sha1: await this.publishedSum(url, 'sha1') };
      } catch (e1) {
        if (!(e1 instanceof UpstreamError)) throw e1;
        throw new InstallerFailure(`the Controller could not fetch the checksum of ${what}: ${e256.message}; ${e1.message}`);
      }
    }
    try {
      const path = await this.store.ensureDownload(download);
      return { path, sha256: download.sha256 ?? await sha256Of(path) };
    } catch (e) {
      if (e instanceof ArtifactUnavailableError) throw new InstallerFailure(`the Controller could not fetch ${what}: ${e.message.replace(/as listed/, `as published in ${url}.${download.sha256 ? 'sha256' : 'sha1'}`)}`);
      throw e;
    }
  }

  private async publishedSum(url: string, algorithm: 'sha256' | 'sha1'): Promise<string> {
    const text = await fetchUpstreamText(`${url}.${algorithm}`, 'text/plain');
    const sum = text.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
    if (!new RegExp(`^[0-9a-f]{${algorithm === 'sha256' ? 64 : 40}}$`).test(sum)) throw new UpstreamError(`${url}.${algorithm} holds no ${algorithm}`);
    return sum;
  }

  /** Runs the installer in a fresh directory and stores its output; the directory is removed after, whatever happened. */
  private async run(what: string, source: InstallerSource, jar: string) {
    const dir = await this.store.tempPath();
    try {
      await mkdir(dir, { mode: 0o700 });
      await copyFile(jar, join(dir, installerFile));
      const exit = await runInstallerProcess({ java: this.options.java, jar: installerFile, dir, deadlineMs: this.options.deadlineMs, logger: this.deps.logger });
      const tail = exit.lastLines.length ? `; its last lines:\n${exit.lastLines.join('\n')}` : '; it printed nothing';
      if (exit.failure) throw new InstallerFailure(`INSTALL_FAILED: ${what} failed on the Controller (${exit.failure})${tail}`);
      let output: Awaited<ReturnType<typeof storeInstallerOutput>>;
      try {
        output = await storeInstallerOutput(dir, this.store);
      } catch (e) {
        if (e instanceof OutputRefused) throw new InstallerFailure(`INSTALL_FAILED: ${what} ran, but its output is refused: ${e.message}${tail}`);
        throw e;
      }
      this.deps.logger.info(
        { event: 'installer_ran', source, durationMs: exit.durationMs, files: output.files, bytes: output.bytes, sandboxed: exit.sandboxed, tree: output.tree.sha256 },
        `${what} ran on the Controller${exit.sandboxed ? ' (in a bubblewrap sandbox)' : ' (bubblewrap unavailable: not sandboxed)'}`,
      );
      return { tree: output.tree, produced: output.produced, args: output.args };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
