import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { User } from './api-types.js';
import { adminCredentials, networkInput } from './controller.js';
import { ApiClient, sessionCookieFrom } from './http.js';

const controllerMain = fileURLToPath(new URL('../../src/controller/main.ts', import.meta.url));
const tsxImport = import.meta.resolve('tsx');

/**
 * A real `cairn-controller` process (from source through tsx) on the embedded store, for tests that
 * kill it (SIGKILL leaves the store as a crash would). Its logs are kept for failure messages.
 */
export class ControllerProcess {
  stderr = '';
  readonly exited: Promise<void>;

  private constructor(readonly child: ChildProcess, readonly httpPort: number, readonly grpcPort: number) {
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
  }

  private static spawn(dataDir: string, grpcPort: number, options: { extraArgs?: string[]; env?: NodeJS.ProcessEnv }): ChildProcess & { stdout: Readable; stderr: Readable } {
    const argv = ['--import', tsxImport, controllerMain, '--data-dir', dataDir, '--http-port', '0', '--grpc-port', String(grpcPort), ...(options.extraArgs ?? [])];
    return spawn(process.execPath, argv, {
      env: { ...process.env, MONGODB_URI: '', CAIRN_LOG_LEVEL: 'warn', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  /** Starts on `grpcPort` (0: any) and resolves once it listens; `extraArgs` and `env` add to its command line and environment. */
  static async start(dataDir: string, grpcPort = 0, options: { extraArgs?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<ControllerProcess> {
    const child = ControllerProcess.spawn(dataDir, grpcPort, options);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const lines = createInterface({ input: child.stdout });
    const first = await Promise.race([
      once(lines, 'line') as Promise<[string]>,
      once(child, 'exit').then(() => {
        throw new Error(`the Controller exited before listening:\n${stderr}`);
      }),
    ]);
    const { httpPort, grpcPort: port } = JSON.parse(first[0]) as { httpPort: number; grpcPort: number };
    const started = new ControllerProcess(child, httpPort, port);
    started.stderr = stderr;
    return started;
  }

  /** Runs one that is expected to refuse to start (`extraArgs` after the test's own flags win over them): its exit status and output. */
  static async refused(dataDir: string, options: { extraArgs?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = ControllerProcess.spawn(dataDir, 0, options);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const [code] = (await once(child, 'close')) as [number | null];
    return { code, stdout, stderr };
  }

  get api(): ApiClient {
    return new ApiClient(`http://127.0.0.1:${this.httpPort}`);
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill(signal);
    await this.exited;
  }
}

/** First-run setup of a fresh Controller process with the test administrator: its signed-in client and session cookie. */
export async function setUpAdminOf(controller: ControllerProcess, dataDir: string): Promise<{ admin: ApiClient; cookie: string }> {
  const setupCode = (await readFile(join(dataDir, 'setup-code'), 'utf8')).trim();
  const setup = await controller.api.post<User>('/setup', { setupCode, ...adminCredentials, network: networkInput });
  if (setup.status !== 201) throw new Error(`setup failed: ${setup.status} ${setup.text}`);
  const cookie = sessionCookieFrom(setup);
  return { admin: controller.api.withCookie(cookie), cookie };
}

/**
 * One of several Controllers on the test database: each takes the secrets key file they share
 * (the Agent link and internal keys in the store are sealed with it), without an SFTP port.
 */
export async function startOnSharedStore(dataDir: string, secretsKeyFile: string, database: { uri(): Promise<string> }): Promise<ControllerProcess> {
  return ControllerProcess.start(dataDir, 0, {
    extraArgs: ['--secrets-key-file', secretsKeyFile, '--sftp-port', 'off'],
    env: { MONGODB_URI: await database.uri(), CAIRN_LOG_LEVEL: 'info' },
  });
}
