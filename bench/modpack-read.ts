/**
 * Reading one Modrinth pack version on the Controller: a 200-file pack (64 KiB each, plus 20
 * override files) from a local Modrinth (test/support/fake-modrinth.ts), downloaded, checked
 * (sha512, sha1, size), hashed (sha256) into an artifact store and its manifest made, as
 * `readPackVersion` does before a server is given the pack. Prints the wall and CPU time, the
 * disk the store holds afterwards and the pack's own size. `BENCH_PACK_FILES` changes the count.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { ArtifactStore } from '../src/controller/adapters/software/artifact-store.js';
import { listProjectVersions } from '../src/controller/adapters/software/modrinth-api.js';
import { readPackVersion } from '../src/controller/services/software/modpack-reader.js';
import { FakeModrinth } from '../test/support/fake-modrinth.js';

const fileCount = Number(process.env.BENCH_PACK_FILES ?? 200);
const fileBytes = 64 * 1024;

async function main(): Promise<void> {
  const modrinth = await FakeModrinth.start();
  const dir = await mkdtemp(join(tmpdir(), 'cairn-bench-pack-'));
  try {
    modrinth.projects.set('bench', [{
      id: 'V1', versionNumber: '1.0.0', game: '1.21.4', loader: 'fabric-loader', loaderVersion: '0.16.10',
      files: Array.from({ length: fileCount }, (_, i) => ({ path: `mods/mod-${i}.jar`, bytes: randomBytes(fileBytes) })),
      overrides: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`config/mod-${i}.toml`, `setting = ${i}\n`.repeat(50)])),
    }]);
    const store = new ArtifactStore(join(dir, 'artifacts'), pino({ level: 'silent' }));
    const [version] = await listProjectVersions(modrinth.base, 'bench');
    const cpu = process.cpuUsage();
    const started = performance.now();
    const read = await readPackVersion(store, version, { base: modrinth.base, concurrency: 4, fileTimeoutMs: 60_000 });
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    let disk = 0;
    for (const name of await readdir(store.dir)) if (name.endsWith('.jar')) disk += (await stat(join(store.dir, name))).size;
    const packBytes = version.files[0].size;
    console.log(`pack of ${fileCount} files x ${fileBytes / 1024} KiB + 20 overrides (.mrpack ${packBytes} bytes): ${read.produced.length - 1} files read`);
    console.log(`wall ${wallMs.toFixed(0)} ms, CPU ${((used.user + used.system) / 1000).toFixed(0)} ms, store ${(disk / 2 ** 20).toFixed(1)} MiB after (the .mrpack itself is not kept)`);
  } finally {
    await modrinth.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
