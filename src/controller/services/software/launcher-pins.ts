import type { ArtifactStore } from '../../adapters/software/artifact-store.js';
import type { ListedVersionRecord } from '../../schemas/software.js';
import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import { nowIso, type ServiceDeps } from '../deps.js';

interface Pin {
  game: string;
  loader: string;
  installer: string;
  url: string;
  sha256: string;
  size: number;
  pinnedAt: string;
}

const settingId = 'software-pins:fabric';
const keyOf = (game: string, loader: string, installer: string) => `${game} ${loader} ${installer}`;

/** Why a launcher could not be pinned, in words for `invalid_request`. */
export class PinFailure extends Error {}

/**
 * The sha256 of each Fabric server launcher (per game version, loader and installer) as the
 * Controller first downloaded it: Fabric publishes no checksum, so the first download is the one
 * every later download must match (a launcher changed under the same versions is refused, never
 * run). Kept in the store, one document for all, so a Controller restarted without its data dir
 * still refuses a changed launcher.
 */
export class LauncherPins {
  private readonly pins = new Map<string, Pin>();
  private readonly pinning = new KeyedMutex();

  constructor(private readonly deps: Pick<ServiceDeps, 'repos' | 'clock' | 'logger'>, private readonly store: Pick<ArtifactStore, 'pinDownload'>) {}

  async load(): Promise<void> {
    const stored = (await this.deps.repos.settings.findById(settingId))?.value as { pins: Pin[] } | undefined;
    for (const pin of stored?.pins ?? []) this.pins.set(keyOf(pin.game, pin.loader, pin.installer), pin);
  }

  /**
   * The listing with each pinned build's download carrying its sha256 and size. A build pinned
   * under an older installer only keeps that launcher, so a server installed before Fabric
   * released a new installer installs the same launcher again.
   */
  applyTo(versions: readonly ListedVersionRecord[]): ListedVersionRecord[] {
    return versions.map((v) => !v.builds || !v.installer ? v : {
      ...v,
      builds: v.builds.map((b) => {
        const pin = this.pins.get(keyOf(v.version, b.id, v.installer!)) ?? this.olderPin(v.version, b.id);
        return pin ? { ...b, sha256: pin.sha256, size: pin.size, download: { url: pin.url, sha256: pin.sha256, size: pin.size, pinnedAt: pin.pinnedAt } } : b;
      }),
    });
  }

  /** Downloads the launcher of a build not pinned yet into the artifact store and pins its sha256. */
  async pin(game: string, loader: string, installer: string, url: string): Promise<void> {
    const key = keyOf(game, loader, installer);
    await this.pinning.run(key, async () => {
      if (this.pins.has(key)) return;
      let got: { sha256: string; size: number };
      try {
        got = await this.store.pinDownload(url);
      } catch (e) {
        throw new PinFailure(`the Controller could not fetch Fabric's server launcher: ${(e as Error).message}`);
      }
      const pin = { game, loader, installer, url, ...got, pinnedAt: nowIso(this.deps) };
      this.pins.set(key, pin);
      // A list, not a map by versions: store keys cannot hold the dots of a version.
      const value = { pins: [...this.pins.values()] };
      const updated = await this.deps.repos.settings.update({ _id: settingId }, { value, updatedAt: pin.pinnedAt });
      if (updated === 0) await this.deps.repos.settings.insert({ _id: settingId, value, updatedAt: pin.pinnedAt });
      this.deps.logger.info({ event: 'fabric_launcher_pinned', game, loader, installer, sha256: got.sha256 }, 'Fabric server launcher pinned at its first download');
    });
  }

  private olderPin(game: string, loader: string): Pin | undefined {
    return [...this.pins.values()].filter((p) => p.game === game && p.loader === loader).sort((a, b) => (a.pinnedAt < b.pinnedAt ? 1 : -1))[0];
  }
}
