/**
 * Software sync benchmark: the CPU the Controller spends listing a full PaperMC project and
 * Mojang's releases. The listing functions the Controller's sync runs are called directly, in
 * this process (`listPaperProject`, `listMojangReleases`), against test/support/fake-upstream.ts
 * populated like the real upstreams: BENCH_PAPER_VERSIONS (108: 1.8.8 … 1.21.10) versions of
 * BENCH_PAPER_BUILDS (250) builds each, and a Mojang manifest of BENCH_MOJANG_ENTRIES (800)
 * entries of which BENCH_MOJANG_RELEASES (80) are releases.
 *
 * The fake upstream runs in a child process (bench/support/fake-upstream-process.ts), so this
 * process's CPU (process.cpuUsage, user + system, all its threads) is the listing code's alone:
 * fetch, reading the bodies, JSON.parse, the schema checks and building the listing. The child's
 * CPU over the same span is printed beside it as the fake server's share; it is not subtracted
 * from anything, since it was never counted in ours.
 *
 * Each of BENCH_SYNC_ROUNDS (4) rounds runs, in order: a full PaperMC sync (no previous listing),
 * a second one with that listing and nothing changed upstream (builds reused: one request), and
 * the same two for Mojang. The first round includes V8 compiling the code (what a Controller's
 * first sync after a start pays); later rounds are the warm figures.
 * Run with `npm run bench software-sync` or `npx tsx bench/software-sync.ts`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { listMojangReleases } from '../src/controller/adapters/software/mojang-listing.js';
import { listPaperProject } from '../src/controller/adapters/software/papermc-listing.js';
import type { ListedVersionRecord } from '../src/controller/schemas/software.js';
import type { UpstreamShape, UpstreamStats } from './support/fake-upstream-process.js';

const shape: UpstreamShape = {
  paperVersions: Number(process.env.BENCH_PAPER_VERSIONS ?? 108),
  buildsPerVersion: Number(process.env.BENCH_PAPER_BUILDS ?? 250),
  mojangEntries: Number(process.env.BENCH_MOJANG_ENTRIES ?? 800),
  mojangReleases: Number(process.env.BENCH_MOJANG_RELEASES ?? 80),
};
const rounds = Number(process.env.BENCH_SYNC_ROUNDS ?? 4);

function startUpstream(): Promise<{ child: ChildProcess; base: string }> {
  const child = fork(fileURLToPath(new URL('./support/fake-upstream-process.ts', import.meta.url)), [JSON.stringify(shape)], {
    execArgv: ['--import', import.meta.resolve('tsx')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve({ child, base: (m as { base: string }).base }));
    child.once('exit', (code) => reject(new Error(`the fake upstream exited (${code}) before listening`)));
  });
}

function upstreamStats(child: ChildProcess): Promise<UpstreamStats> {
  const answer = once(child, 'message') as Promise<[UpstreamStats]>;
  child.send('stats');
  return answer.then(([stats]) => stats);
}

interface Measured {
  listing: ListedVersionRecord[];
  wallMs: number;
  cpuMs: number;
  upstreamCpuMs: number;
  requests: number;
}

async function measure(child: ChildProcess, sync: () => Promise<ListedVersionRecord[]>): Promise<Measured> {
  // A collection left over from the previous sync's garbage would otherwise land in this one's CPU.
  globalThis.gc?.();
  const upstreamBefore = await upstreamStats(child);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const listing = await sync();
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const upstreamAfter = await upstreamStats(child);
  return {
    listing, wallMs, cpuMs: (cpu.user + cpu.system) / 1000,
    // The stats exchange itself costs the child a few microseconds: noise at these sizes.
    upstreamCpuMs: (upstreamAfter.cpuMicros - upstreamBefore.cpuMicros) / 1000,
    requests: upstreamAfter.requests - upstreamBefore.requests,
  };
}

function report(what: string, m: Measured): void {
  const bytes = Buffer.byteLength(JSON.stringify(m.listing));
  const builds = m.listing.reduce((n, v) => n + (v.builds?.length ?? 0), 0);
  process.stdout.write(
    `${what.padEnd(26)} wall ${m.wallMs.toFixed(0).padStart(5)} ms, CPU ${m.cpuMs.toFixed(0).padStart(5)} ms (fake upstream ${m.upstreamCpuMs.toFixed(0)} ms), ` +
    `${String(m.requests).padStart(3)} requests, listing ${m.listing.length} versions${builds ? ` / ${builds} builds` : ''}, ${bytes.toLocaleString('en')} bytes of JSON\n`,
  );
}

async function main(): Promise<void> {
  const { child, base } = await startUpstream();
  try {
    process.stdout.write(`upstream: PaperMC 'paper' ${shape.paperVersions} versions × ${shape.buildsPerVersion} builds; Mojang ${shape.mojangEntries} manifest entries, ${shape.mojangReleases} releases (in a child process)\n`);
    const medians = new Map<string, number[]>();
    const keep = (what: string, m: Measured) => {
      report(what, m);
      medians.set(what, [...(medians.get(what) ?? []), m.cpuMs]);
    };
    for (let round = 1; round <= rounds; round++) {
      process.stdout.write(`round ${round}${round === 1 ? ' (cold: includes compiling the code)' : ''}\n`);
      const paperFull = await measure(child, () => listPaperProject(`${base}/v3`, 'paper', []));
      keep('  paper, full sync', paperFull);
      const paperAgain = await measure(child, () => listPaperProject(`${base}/v3`, 'paper', paperFull.listing));
      keep('  paper, nothing changed', paperAgain);
      const mojangFull = await measure(child, () => listMojangReleases(`${base}/mc/version_manifest_v2.json`, []));
      keep('  mojang, full sync', mojangFull);
      const mojangAgain = await measure(child, () => listMojangReleases(`${base}/mc/version_manifest_v2.json`, mojangFull.listing));
      keep('  mojang, nothing changed', mojangAgain);
      if (JSON.stringify(paperAgain.listing) !== JSON.stringify(paperFull.listing)) throw new Error('the unchanged PaperMC sync listed something else');
      if (JSON.stringify(mojangAgain.listing) !== JSON.stringify(mojangFull.listing)) throw new Error('the unchanged Mojang sync listed something else');
    }
    if (rounds > 1) {
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      process.stdout.write(`CPU median of the warm rounds (2–${rounds}): ${[...medians].map(([what, xs]) => `${what.trim()} ${median(xs.slice(1)).toFixed(0)} ms`).join(', ')}\n`);
    }
  } finally {
    child.disconnect();
    await once(child, 'exit');
  }
}

await main();
