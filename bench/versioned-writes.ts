/**
 * What claiming a version costs a write over it (src/controller/store/mongo/version-claims.ts), on
 * the test server (FerretDB built by `.ci/run`, or the MongoDB `MONGODB_URI` names): one writer
 * replaces BENCH_VERSIONED_RECORDS (default 200) records of the size of a server's, one after
 * another, each over the version it read, BENCH_VERSIONED_ROUNDS times (default 6), alternating
 * rounds with and without the claim. Per write: wall ms (p50, p99, mean over the round, which counts
 * the claims' deletes that nobody waits for), this process's CPU and, on FerretDB, the server's CPU
 * (/proc/<pid>/stat). Run with `npm run bench versioned-writes`.
 */
import '../test/support/test-env.js';
import { readFileSync } from 'node:fs';
import { MongoClient, type Document } from 'mongodb';
import type { Collection } from '../src/controller/store/collection.js';
import { MongoCollection } from '../src/controller/store/mongo/mongo-collection.js';
import { VersionClaims } from '../src/controller/store/mongo/version-claims.js';
import { systemClock } from '../src/shared/clock.js';
import { ferretdbProcess, freshTestDatabase, testMongo } from '../test/support/test-mongodb.js';

const records = Number(process.env.BENCH_VERSIONED_RECORDS ?? 200);
const rounds = Number(process.env.BENCH_VERSIONED_ROUNDS ?? 6);

interface Rec {
  _id: string;
  updatedAt: string;
  generation: number;
  /** About a server record's size (≈ 2 KiB of desired spec, observed status and actor snapshot). */
  body: string;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** CPU seconds of a process so far (user + system), from /proc. */
function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function round(c: Collection<Rec>, serverPid: number | undefined): Promise<{ p50: number; p99: number; mean: number; ownCpuUs: number; serverCpuUs: number | undefined }> {
  const docs = await c.find({});
  const times: number[] = [];
  const cpu = process.cpuUsage();
  const serverCpu = serverPid === undefined ? undefined : cpuSecondsOf(serverPid);
  const start = performance.now();
  for (const doc of docs) {
    const next = { ...doc, updatedAt: new Date(Date.parse(doc.updatedAt) + 1).toISOString(), generation: doc.generation + 1 };
    const t = performance.now();
    if (!(await c.replaceVersion({ id: doc._id, field: 'updatedAt', value: doc.updatedAt }, next))) throw new Error(`write over ${doc._id} refused: nobody else writes`);
    times.push(performance.now() - t);
  }
  const mean = (performance.now() - start) / docs.length;
  const used = process.cpuUsage(cpu);
  const sorted = times.sort((x, y) => x - y);
  return {
    p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean,
    ownCpuUs: (used.user + used.system) / docs.length,
    serverCpuUs: serverPid === undefined || serverCpu === undefined ? undefined : ((cpuSecondsOf(serverPid) - serverCpu) * 1e6) / docs.length,
  };
}

async function main(): Promise<void> {
  if (!testMongo) throw new Error('no MongoDB-compatible server: set MONGODB_URI or build FerretDB (.ci/run)');
  const db = freshTestDatabase(testMongo, 'cairn_bench_versioned');
  const client = await MongoClient.connect(await db.uri(), { serverSelectionTimeoutMS: 5000 });
  try {
    const driver = client.db().collection<Document>('records');
    const plain = new MongoCollection<Rec>(driver);
    const claimed = new MongoCollection<Rec>(driver, [], new VersionClaims(client.db().collection('versionClaims'), systemClock));
    for (let i = 0; i < records; i++) await plain.insert({ _id: `s${String(i).padStart(4, '0')}`, updatedAt: new Date(0).toISOString(), generation: 1, body: 'x'.repeat(2048) });
    const serverPid = testMongo.kind === 'ferretdb' ? ferretdbProcess()?.pid : undefined;
    console.log(`${records} writes a round, one at a time, on ${testMongo.kind}; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
    for (let r = 0; r < rounds; r++) {
      for (const [name, c] of [['filter alone', plain], ['claim first', claimed]] as const) {
        const m = await round(c, serverPid);
        const server = m.serverCpuUs === undefined ? '' : `, server CPU ${m.serverCpuUs.toFixed(0)} µs`;
        console.log(`round ${r + 1} ${name.padEnd(12)}: p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms, mean ${m.mean.toFixed(2)} ms a write; this process's CPU ${m.ownCpuUs.toFixed(0)} µs${server}`);
      }
    }
    const left = await client.db().collection('versionClaims').countDocuments({});
    console.log(`claims left right after the last round: ${left} (their deletes are not waited for)`);
  } finally {
    await client.close();
    await db.drop();
  }
}

main().then(() => process.exit(0), (e: unknown) => {
  console.error(e);
  process.exit(1);
});
