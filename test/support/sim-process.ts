import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

/** The repository's `src/sim/<name>.ts`. */
export const simSource = (name: 'simcraft' | 'simproxy') => fileURLToPath(new URL(`../../src/sim/${name}.ts`, import.meta.url));

/** tsx as an absolute URL: `--import tsx` alone resolves from the child's cwd, a temp dir. */
export const tsxImport = import.meta.resolve('tsx');

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A child process whose stdout lines are kept and can be awaited, and whose stdin takes commands. */
export class SimProcess {
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  private waiters: { re: RegExp; resolve: (line: string) => void }[] = [];

  private constructor(readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      this.lines.push(line);
      this.waiters = this.waiters.filter((w) => {
        if (!w.re.test(line)) return true;
        w.resolve(line);
        return false;
      });
    });
    child.stderr.resume();
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** Runs `node [--import tsx] <script> ...args` in `cwd`. */
  static start(script: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): SimProcess {
    const loader = script.endsWith('.ts') ? ['--import', tsxImport] : [];
    return new SimProcess(spawn(process.execPath, [...loader, script, ...args], { cwd, env: { ...process.env, ...env } }));
  }

  /** The first line matching `re` printed after `from` (default: any line so far), within `timeoutMs`. */
  waitForLine(re: RegExp, timeoutMs = 8000, from = 0): Promise<string> {
    const seen = this.lines.slice(from).find((l) => re.test(l));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no line matching ${re} within ${timeoutMs} ms; got:\n${this.lines.join('\n')}`)), timeoutMs);
      this.waiters.push({ re, resolve: (l) => { clearTimeout(timer); resolve(l); } });
    });
  }

  /** Types a command and waits for the first line matching `re` that it produced. */
  async command(line: string, re: RegExp): Promise<string> {
    const from = this.lines.length;
    this.child.stdin.write(line + '\n');
    return this.waitForLine(re, 8000, from);
  }

  send(line: string): void {
    this.child.stdin.write(line + '\n');
  }

  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}
