import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface ProgramResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(nodeArgs: string[], options: { env?: NodeJS.ProcessEnv; stdin?: string }): Promise<ProgramResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, nodeArgs, {
      cwd: repoRoot,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

/** Runs one of the project's TypeScript programs to completion (through tsx), feeding stdin. */
export function runProgram(entry: string, args: string[], options: { env?: NodeJS.ProcessEnv; stdin?: string } = {}) {
  return run(['--import', 'tsx', entry, ...args], options);
}

/** The built entry of a program (`npm run build` makes dist/), as users run it. */
export function builtProgram(program: 'cli' | 'controller' | 'agent'): string {
  const path = join(repoRoot, 'dist', 'src', program, 'main.js');
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` first`);
  return path;
}

/** Runs a built program to completion, feeding stdin. */
export function runBuilt(program: 'cli' | 'controller' | 'agent', args: string[], options: { env?: NodeJS.ProcessEnv; stdin?: string } = {}) {
  return run([builtProgram(program), ...args], options);
}

/** A built program left running (`cairn logs -f`, `cairn get --watch`), its output collected as it comes. */
export class RunningProgram {
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  constructor(program: 'cli' | 'controller' | 'agent', args: string[], env: NodeJS.ProcessEnv = {}) {
    this.child = spawn(process.execPath, [builtProgram(program), ...args], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => (this.stdout += d));
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await this.exited;
  }
}
