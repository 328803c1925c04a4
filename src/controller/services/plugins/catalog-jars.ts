import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import { adoptBySha512 } from '../../adapters/plugins/sha512-jar.js';
import { ArtifactUnavailableError, type ArtifactStore } from '../../adapters/software/artifact-store.js';
import { DomainError } from '../../core/errors.js';
import type { PlannedPlugin } from '../../domain/plugin-deps.js';

export type Sha256Planned = PlannedPlugin & { sha256: string };

/**
 * Gives every planned catalog jar the sha256 installations and Nodes check. A version listed by
 * sha512 only (Modrinth) is downloaded now, at its first install, checked against that sha512 and
 * its size, and kept in the ArtifactStore under its sha256; the pair is remembered, so later
 * installs of the same version download nothing.
 */
export class CatalogJars {
  private readonly sha256BySha512 = new Map<string, string>();
  private readonly fetching = new KeyedMutex();

  constructor(private readonly artifacts: ArtifactStore) {}

  async withSha256(plan: readonly PlannedPlugin[]): Promise<Sha256Planned[]> {
    const out: Sha256Planned[] = [];
    for (const p of plan) out.push({ ...p, sha256: await this.sha256Of(p) });
    return out;
  }

  private async sha256Of({ pluginId, version }: PlannedPlugin): Promise<string> {
    const { sha256, sha512, url, size } = version.download;
    if (sha256) return sha256;
    if (!sha512) throw new DomainError('plugin_unavailable', `${pluginId} ${version.version} lists no checksum to verify its jar with.`);
    return this.fetching.run(sha512, async () => {
      const known = this.sha256BySha512.get(sha512);
      if (known && (await this.artifacts.has(known))) return known;
      try {
        const sum = await adoptBySha512(this.artifacts, { url, sha512, size });
        this.sha256BySha512.set(sha512, sum);
        return sum;
      } catch (error) {
        if (error instanceof ArtifactUnavailableError) throw new DomainError('plugin_unavailable', `${pluginId} ${version.version}: ${error.message}. Nothing was installed.`);
        throw error;
      }
    });
  }
}
