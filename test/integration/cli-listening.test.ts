import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const mainJs = join(process.cwd(), 'dist', 'src', 'controller', 'main.js');

interface Started {
  child: ChildProcess;
  listening: { event: string; httpPort: number; grpcPort: number };
}

/** Spawns the built Controller and resolves with its `{"event":"listening",...}` line from stdout. */
function startProgram(args: string[], env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(process.execPath, [mainJs, ...args], {
    env: { ...process.env, MONGODB_URI: '', CAIRN_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line in 15 s; stderr: ${stderr}`)), 15_000);
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve({ child, listening: JSON.parse(line) as Started['listening'] });
      } catch (e) {
        reject(new Error(`first stdout line is not JSON: ${line}`));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening; stderr: ${stderr}`));
    });
  });
}

const exitOf = (child: ChildProcess) => new Promise<number | null>((resolve) => {
  if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
  else child.once('exit', (code) => resolve(code));
});

describe('the built cairn-controller program', () => {
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-cli-'));
    dirs.push(dir);
    return dir;
  };
  after(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(children.map(exitOf));
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('with --http-port 0 prints {"event":"listening","httpPort":N,"grpcPort":M} and serves on N; SIGTERM stops it cleanly', async () => {
    const dataDir = await tempDir();
    const { child, listening } = await startProgram(['--data-dir', dataDir, '--http-port', '0', '--grpc-port', '0']);
    children.push(child);
    expect(listening.event).to.equal('listening');
    expect(listening.httpPort).to.be.a('number').greaterThan(0);
    expect(listening.grpcPort).to.be.a('number');
    const health = await fetch(`http://127.0.0.1:${listening.httpPort}/healthz`);
    expect(health.status).to.equal(200);
    const me = await fetch(`http://127.0.0.1:${listening.httpPort}/api/v1/me`);
    expect(me.status).to.equal(401);
    expect(me.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect((await stat(join(dataDir, 'setup-code'))).mode & 0o777).to.equal(0o600);
    child.kill('SIGTERM');
    expect(await exitOf(child)).to.equal(0);
  });

  it('reads CAIRN_DATA_DIR, CAIRN_HTTP_PORT, CAIRN_GRPC_PORT and CAIRN_HOST from the environment', async () => {
    const dataDir = await tempDir();
    const { child, listening } = await startProgram([], { CAIRN_DATA_DIR: dataDir, CAIRN_HTTP_PORT: '0', CAIRN_GRPC_PORT: '0', CAIRN_HOST: '127.0.0.1' });
    children.push(child);
    expect((await fetch(`http://127.0.0.1:${listening.httpPort}/readyz`)).status).to.equal(200);
    const code = (await readFile(join(dataDir, 'setup-code'), 'utf8')).trim();
    expect(code).to.match(/^[0-9A-Za-z-]{24}$/);
    child.kill('SIGTERM');
    expect(await exitOf(child)).to.equal(0);
  });

  it('flags win over environment variables', async () => {
    const flagDir = await tempDir();
    const envDir = await tempDir();
    const { child } = await startProgram(['--data-dir', flagDir, '--http-port', '0', '--grpc-port', '0'], { CAIRN_DATA_DIR: envDir, CAIRN_HTTP_PORT: '1' });
    children.push(child);
    await stat(join(flagDir, 'setup-code'));
    let envUsed = true;
    await stat(join(envDir, 'setup-code')).catch(() => (envUsed = false));
    expect(envUsed).to.equal(false);
    child.kill('SIGTERM');
    await exitOf(child);
  });

  it('refuses a bad port or an unknown flag with exit code 2 and a message', async () => {
    const dataDir = await tempDir();
    await Promise.all([['--http-port', 'eighty'], ['--http-port', '70000'], ['--no-such-flag']].map(async (args) => {
      const child = spawn(process.execPath, [mainJs, '--data-dir', dataDir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      expect(await exitOf(child), args.join(' ')).to.equal(2);
      expect(stderr).to.match(/cairn-controller: /);
    }));
  });
});
