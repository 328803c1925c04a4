/**
 * test/support/fake-upstream.ts in a process of its own, for bench/software-sync.ts: the bench
 * measures the Controller's listing code by its own process's CPU, so the fake PaperMC and
 * Mojang upstreams (which hash every build's bytes and serialize every answer) must not run in
 * that process. Started with `fork` and an IPC channel:
 * - it populates the upstream from the sizes in its argv (JSON of `UpstreamShape`), then sends
 *   `{ base }`;
 * - to `'stats'` it answers `{ cpuMicros, requests }`: its process CPU (user + system) so far and
 *   how many requests the upstream has seen.
 */
import { randomBytes } from 'node:crypto';
import { FakeUpstream, type FakeBuild, type FakeMojangVersion, type FakePaperVersion } from '../../test/support/fake-upstream.js';

export interface UpstreamShape {
  paperVersions: number;
  buildsPerVersion: number;
  mojangEntries: number;
  mojangReleases: number;
}

export interface UpstreamStats {
  cpuMicros: number;
  requests: number;
}

/**
 * Version ids shaped like PaperMC's (1.8.8, 1.9 … 1.20.7, 1.21 … 1.21.10), oldest first: the
 * sort and comparison code sees the ids it sees upstream. `count` is reached by giving each minor
 * up to eight patch releases, the last minor as many as it takes.
 */
export function gameVersionIds(count: number): string[] {
  const ids = ['1.8.8'];
  for (let minor = 9; ids.length < count; minor++) {
    const last = minor >= 21;
    for (let patch = 0; (last || patch < 8) && ids.length < count; patch++) ids.push(patch === 0 ? `1.${minor}` : `1.${minor}.${patch}`);
  }
  return ids;
}

/** Small random bytes: the listing carries only their checksum and size, never the bytes. */
const jar = () => randomBytes(64);

function paperVersions(shape: UpstreamShape): FakePaperVersion[] {
  return gameVersionIds(shape.paperVersions).reverse().map((id, i): FakePaperVersion => {
    const builds: FakeBuild[] = [];
    // Newest first, as Fill lists them; the newest few of a version are often still BETA.
    for (let b = shape.buildsPerVersion; b >= 1; b--) builds.push({ id: b, channel: i < 3 && b > shape.buildsPerVersion - 3 ? 'BETA' : 'STABLE', bytes: jar() });
    return { id, java: i < 10 ? 21 : 17, builds };
  });
}

/**
 * piston-meta's manifest, newest first: `mojangReleases` releases, snapshots between them up to
 * `mojangEntries`, and the oldest entries old_beta. The oldest five releases have no server
 * download, as Mojang's earliest ones lack one.
 */
function mojangVersions(shape: UpstreamShape): FakeMojangVersion[] {
  const releases = gameVersionIds(shape.mojangReleases).reverse();
  const others = shape.mojangEntries - shape.mojangReleases;
  const perRelease = Math.floor(others / releases.length);
  const out: FakeMojangVersion[] = [];
  releases.forEach((id, i) => {
    for (let s = 0; s < perRelease; s++) out.push({ id: `${id}-snapshot-${perRelease - s}`, type: 'snapshot' });
    out.push({ id, type: 'release', java: i < 10 ? 21 : 17, ...(i < releases.length - 5 ? { bytes: jar() } : {}) });
  });
  while (out.length < shape.mojangEntries) out.push({ id: `b1.${out.length}`, type: 'old_beta' });
  return out;
}

const shape = JSON.parse(process.argv[2] ?? '{}') as UpstreamShape;
const upstream = await FakeUpstream.start();
upstream.paper.set('paper', paperVersions(shape));
upstream.mojang = mojangVersions(shape);
process.on('message', (message) => {
  if (message !== 'stats') return;
  const cpu = process.cpuUsage();
  process.send!({ cpuMicros: cpu.user + cpu.system, requests: upstream.requests.length } satisfies UpstreamStats);
});
// The parent going away (or being killed) ends this process too.
process.on('disconnect', () => void upstream.close().then(() => process.exit(0)));
process.send!({ base: upstream.base });
