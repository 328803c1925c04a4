import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { freshDatabase } from './mongo-db.js';
import { freePort } from './sim-process.js';

/** The FerretDB release the tests run against (the one `.ci/run` builds). */
export const ferretdbVersion = 'v1.24.2';

/** Where `.ci/run` builds FerretDB, and where the tests look for it (`CAIRN_FERRETDB` overrides). */
export const ferretdbBinary = process.env.CAIRN_FERRETDB ?? join(homedir(), '.cache', 'cairn', `ferretdb-${ferretdbVersion}`, 'ferretdb');

/**
 * The MongoDB-compatible server the tests run the MongoDB adapter against: the one `MONGODB_URI`
 * names, else FerretDB (SQLite backend) started by the suite on a private port with a fresh data
 * directory at its first use, and stopped when the run ends. Undefined when neither is there.
 */
export interface TestMongo {
  /** `mongodb` or `ferretdb`: said in test titles, and checked where only MongoDB can (a replica set's step-down). */
  readonly kind: 'mongodb' | 'ferretdb';
  uri(): Promise<string>;
}

let ferret: Promise<string> | undefined;
let ferretProcess: ChildProcess | undefined;

async function startFerretdb(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-ferretdb-'));
  const port = await freePort();
  const child = spawn(ferretdbBinary, [
    '--handler=sqlite', `--sqlite-url=file:${dir}/`, `--state-dir=${dir}`, `--listen-addr=127.0.0.1:${port}`, '--telemetry=disable', '--log-level=ERROR',
    // Its own metrics and debug listener would take a fixed port (8088): a private one, free like the rest.
    `--debug-addr=127.0.0.1:${await freePort()}`,
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  ferretProcess = child;
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  process.once('exit', () => {
    child.kill('SIGKILL');
    void rm(dir, { recursive: true, force: true });
  });
  const uri = `mongodb://127.0.0.1:${port}/`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`FerretDB (${ferretdbBinary}) exited with ${child.exitCode}: ${stderr}`);
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 500 });
    try {
      await client.db('admin').command({ ping: 1 });
      return uri;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`FerretDB did not answer on ${uri} within 30 s; ${stderr}`, { cause: e });
    } finally {
      await client.close();
    }
  }
}

export const testMongo: TestMongo | undefined = process.env.MONGODB_URI
  ? { kind: 'mongodb', uri: () => Promise.resolve(process.env.MONGODB_URI!) }
  : existsSync(ferretdbBinary)
    ? { kind: 'ferretdb', uri: () => (ferret ??= startFerretdb()) }
    : undefined;

/** The process of the FerretDB the suite started, if it did (a test may stop and continue it). */
export const ferretdbProcess = (): ChildProcess | undefined => ferretProcess;

/** A fresh database on the test server, made at its first use, and how to drop it afterwards. */
export function freshTestDatabase(mongo: TestMongo, prefix: string): { uri(): Promise<string>; drop(): Promise<void> } {
  let db: Promise<{ uri: string; drop(): Promise<void> }> | undefined;
  const made = () => (db ??= mongo.uri().then((uri) => freshDatabase(uri, prefix)));
  return {
    uri: async () => (await made()).uri,
    drop: async () => {
      if (db) await (await db).drop();
    },
  };
}

/** Said once per run when neither server is there, so a run that skipped the MongoDB adapter says so. */
if (!testMongo) console.log(`MongoDB adapter not run: MONGODB_URI is not set and there is no FerretDB at ${ferretdbBinary} (.ci/run builds it)`);
