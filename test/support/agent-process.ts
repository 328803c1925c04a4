import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const agentMain = fileURLToPath(new URL('../../src/agent/main.ts', import.meta.url));
const tsxImport = import.meta.resolve('tsx');

/** A real `cairn-agent` process (run from source through tsx), with its output kept for assertions. */
export class AgentProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  private constructor(readonly child: ChildProcess) {
    child.stdout!.on('data', (d: Buffer) => (this.stdout += d));
    child.stderr!.on('data', (d: Buffer) => (this.stderr += d));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  static start(args: { grpcPort: number; dataDir: string; enrollmentToken?: string; extra?: string[] }): AgentProcess {
    const argv = ['--controller', `127.0.0.1:${args.grpcPort}`, '--data-dir', args.dataDir, ...(args.extra ?? [])];
    if (args.enrollmentToken) argv.push('--enrollment-token', args.enrollmentToken);
    return new AgentProcess(spawn(process.execPath, ['--import', tsxImport, agentMain, ...argv], {
      env: { ...process.env, CAIRN_LOG_LEVEL: 'debug' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }));
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (!this.running) return;
    this.child.kill(signal);
    await this.exited;
  }
}

/** Every Agent a test file starts, so `after` hooks can kill them all. */
export class AgentPool {
  private readonly agents: AgentProcess[] = [];

  start(args: Parameters<typeof AgentProcess.start>[0]): AgentProcess {
    const agent = AgentProcess.start(args);
    this.agents.push(agent);
    return agent;
  }

  async killAll(): Promise<void> {
    await Promise.all(this.agents.map((a) => a.kill()));
  }
}
