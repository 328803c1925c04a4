import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { UploadSettings } from '../../src/controller/http/app.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseControllerConfig } from '../../src/controller/program/config.js';
import { startController, type RunningController } from '../../src/controller/controller.js';
import { localAgentDir } from '../../src/controller/program/local-agent-dir.js';
import type { SessionPolicy } from '../../src/controller/services/identity/sessions.js';
import type { NodeTimings } from '../../src/controller/actors/node-machine.js';
import type { MigrationTimings } from '../../src/controller/services/workflows/migrate/migration-context.js';
import { silentLogger } from '../../src/shared/logger.js';
import { TestClock } from './clock.js';
import { waitFor } from './wait-for.js';
import { freshTestDatabase, testMongo } from './test-mongodb.js';
import type { User } from './api-types.js';
import { ApiClient, sessionCookieFrom } from './http.js';
import type { ServerCert, TestCa } from './tls-certs.js';

export interface TestController {
  controller: RunningController;
  dataDir: string;
  clock: TestClock;
  baseUrl: string;
  /** An anonymous client. */
  api: ApiClient;
  /** Stops the Controller; the data dir is kept for a restart. */
  stop(): Promise<void>;
  /** Starts a new Controller on the same data dir (and clock). */
  restart(): Promise<TestController>;
  /** Stops and removes the data dir and the local Agent's beside it. */
  dispose(): Promise<void>;
}

export interface TestControllerOptions {
  dataDir?: string;
  clock?: TestClock;
  sessionPolicy?: SessionPolicy;
  extraArgs?: string[];
  /** Short heartbeat timings for Node tests (the defaults are 5 s / 15 s / 45 s). */
  nodeTimings?: NodeTimings;
  /** The Agent link's port (default: ephemeral); a restart keeps the port so running Agents reconnect. */
  grpcPort?: number;
  /** Short migration deadlines for tests that make them run out. */
  migrationTimings?: MigrationTimings;
  /** Upload slots and body-silence deadline (tests shorten them). */
  uploads?: Partial<UploadSettings>;
  /** Run on this MongoDB database instead of the embedded store (or the CAIRN_TEST_MONGODB one). */
  mongodbUri?: string;
  /** Serve HTTPS and a TLS Agent link with this certificate; `api` then trusts `ca`. */
  tls?: { cert: ServerCert; ca: TestCa };
}

/**
 * `CAIRN_TEST_MONGODB=1` puts every test Controller on the MongoDB adapter: on the server
 * `MONGODB_URI` names, else on the FerretDB the suite starts (test-mongodb.ts); each in a database of
 * its own (kept across its restarts, dropped by `dispose`).
 */
export const testStoreIsMongo = process.env.CAIRN_TEST_MONGODB === '1' && testMongo !== undefined;
const testDatabases = new Map<string, { uri(): Promise<string>; drop(): Promise<void> }>();

// A `--local-agent` of a test Controller inherits this: test servers reserve little (64 MiB, 100m),
// which a box would hold them to. containment.test.ts boxes games on purpose.
process.env.CAIRN_ISOLATION ??= 'off';
// No test reaches the internet: upstreams answer on a closed local port (the shipped snapshot stays in
// use) unless a test serves its own (test/support/fake-upstream.ts).
process.env.CAIRN_SOFTWARE_SOURCES ??= 'papermc=http://127.0.0.1:2/v3,mojang=http://127.0.0.1:2/mc/version_manifest_v2.json,fabric=http://127.0.0.1:2/v2,neoforge=http://127.0.0.1:2/releases,forge=http://127.0.0.1:2/forge,modrinth=http://127.0.0.1:2/modrinth/v2,hangar=http://127.0.0.1:2/hangar/api/v1';

async function testDatabaseFor(dataDir: string): Promise<string | undefined> {
  if (!testStoreIsMongo) return undefined;
  let db = testDatabases.get(dataDir);
  if (!db) {
    db = freshTestDatabase(testMongo!, 'cairn_test');
    testDatabases.set(dataDir, db);
  }
  return db.uri();
}

/** The MongoDB database a test Controller runs on under CAIRN_TEST_MONGODB=1; undefined on the embedded store. */
export async function testStoreUri(t: TestController): Promise<string | undefined> {
  return testDatabases.get(t.dataDir)?.uri();
}

/** An in-process Controller on ephemeral ports with its own temporary data dir and an adjustable clock. */
export async function startTestController(options: TestControllerOptions = {}): Promise<TestController> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'cairn-test-')));
  const clock = options.clock ?? new TestClock();
  const tlsArgs = options.tls ? ['--tls-cert', options.tls.cert.certFile, '--tls-key', options.tls.cert.keyFile] : [];
  const config = parseControllerConfig(['--data-dir', dataDir, '--http-port', '0', '--grpc-port', String(options.grpcPort ?? 0), ...tlsArgs, ...(options.extraArgs ?? [])], {
    MONGODB_URI: options.mongodbUri ?? (await testDatabaseFor(dataDir)),
    CAIRN_SOFTWARE_SOURCES: process.env.CAIRN_SOFTWARE_SOURCES,
    CAIRN_SFTP_PORT: process.env.CAIRN_SFTP_PORT,
  });
  const controller = await startController({ config, clock, logger: silentLogger, checkResponses: true, sessionPolicy: options.sessionPolicy, nodeTimings: options.nodeTimings, migrationTimings: options.migrationTimings, scheduleTimers: clock, uploads: options.uploads });
  // As `npm start` on a terminal, a test has a Controller's local Agent connected before it goes on:
  // late in a full run the Agent process starts slowly, and a first create would find no Node.
  if (controller.localAgent?.pid !== undefined) await waitFor(() => controller.services.agents.connectedCount > 0, { timeoutMs: 60_000, what: 'the local Agent to connect' });
  const baseUrl = `${options.tls ? 'https' : 'http'}://127.0.0.1:${controller.httpPort}`;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await controller.close();
  };
  return {
    controller, dataDir, clock, baseUrl, api: new ApiClient(baseUrl, {}, options.tls?.ca.dispatcher), stop,
    restart: async () => {
      await stop();
      return startTestController({ ...options, dataDir, clock, grpcPort: controller.grpcPort });
    },
    dispose: async () => {
      await stop();
      await testDatabases.get(dataDir)?.drop();
      testDatabases.delete(dataDir);
      await rm(dataDir, { recursive: true, force: true });
      await rm(localAgentDir(dataDir), { recursive: true, force: true });
    },
  };
}

export const adminCredentials = { username: 'admin', email: 'admin@example.com', displayName: 'Admin', password: 'correct-horse-battery' };
export const networkInput = { name: 'Main', description: 'The main network', address: 'play.example.com', port: 25565 };

/** Runs first-run setup with the code from the data dir; returns a client signed in as the administrator. */
export async function setupAdmin(t: TestController): Promise<{ admin: ApiClient; adminId: string }> {
  const setupCode = (await readFile(join(t.dataDir, 'setup-code'), 'utf8')).trim();
  const res = await t.api.post<User>('/setup', { setupCode, ...adminCredentials, network: networkInput });
  if (res.status !== 201) throw new Error(`setup failed: ${res.status} ${res.text}`);
  return { admin: t.api.withCookie(sessionCookieFrom(res)), adminId: res.body.id };
}

/** Creates a user as the administrator, signs it in and changes its password, so it is ready to work. */
export async function createReadyUser(t: TestController, admin: ApiClient, username: string): Promise<{ client: ApiClient; userId: string }> {
  const created = await admin.post<User>('/users', { username, email: `${username}@example.com`, displayName: username, password: 'first-password-1' });
  if (created.status !== 201) throw new Error(`user create failed: ${created.status} ${created.text}`);
  const login = await t.api.post('/auth/login', { username, password: 'first-password-1' });
  const client = t.api.withCookie(sessionCookieFrom(login));
  const changed = await client.post('/me/password', { currentPassword: 'first-password-1', newPassword: 'second-password-2' });
  if (changed.status !== 204) throw new Error(`password change failed: ${changed.status} ${changed.text}`);
  return { client, userId: created.body.id };
}
