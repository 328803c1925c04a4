import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PortRange } from '../../src/shared/link/messages.js';
import { gamePortsArgs, privateGamePorts } from './game-ports.js';

const agentMain = fileURLToPath(new URL('../../src/agent/main.ts', import.meta.url));
const tsxImport = import.meta.resolve('tsx');

/**
 * Where this test run's Agents claim their uid ranges: a directory of the run's own, so two runs on
 * one host (a developer's and CI's) never refuse each other's Agents. A test of the claims names one.
 */
function claimsDir(): string {
  if (process.env.CAIRN_AGENT_CLAIMS_DIR) return process.env.CAIRN_AGENT_CLAIMS_DIR;
  if (runClaims === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-agent-claims-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    runClaims = dir;
  }
  return runClaims;
}
let runClaims: string | undefined;

/** A real `cairn-agent` process (run from source through tsx), with its output kept for assertions. */
export class AgentProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  private constructor(readonly child: ChildProcess) {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (this.stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** Never on the default game ports: each test Agent offers its own private range (see game-ports.ts). */
  /**
   * `asUser`: run as that uid and gid (through setpriv, no groups), as an Agent without root would; `env`: variables
   * beyond the test's own; `wrap`: a command the Agent runs under (its last word is followed by the Agent's own command line).
   */
  static start(args: { grpcPort: number; dataDir: string; gamePorts: PortRange; enrollmentToken?: string; extra?: string[]; asUser?: number; env?: Record<string, string>; wrap?: string[] }): AgentProcess {
    const argv = ['--controller', `127.0.0.1:${args.grpcPort}`, '--data-dir', args.dataDir, ...gamePortsArgs(args.gamePorts), ...(args.extra ?? [])];
    if (args.enrollmentToken) argv.push('--enrollment-token', args.enrollmentToken);
    const node = [process.execPath, '--import', tsxImport, agentMain, ...argv];
    const command = [
      ...(args.wrap ?? []),
      ...(args.asUser === undefined ? node : ['setpriv', `--reuid=${args.asUser}`, `--regid=${args.asUser}`, '--clear-groups', '--', ...node]),
    ];
    return new AgentProcess(spawn(command[0], command.slice(1), {
      // Test servers reserve little (64 MiB, 100m) and run from source; a box would hold them to it.
      // containment.test.ts runs boxes on purpose (`--isolation` on the command line wins).
      env: { ...process.env, CAIRN_LOG_LEVEL: 'debug', CAIRN_ISOLATION: process.env.CAIRN_ISOLATION ?? 'off', CAIRN_AGENT_CLAIMS_DIR: claimsDir(), ...args.env },
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

  /** Starts an Agent on the private game port range given, or one of its own. */
  async start(args: Omit<Parameters<typeof AgentProcess.start>[0], 'gamePorts'> & { gamePorts?: PortRange }): Promise<AgentProcess> {
    const agent = AgentProcess.start({ ...args, gamePorts: args.gamePorts ?? (await privateGamePorts()) });
    this.agents.push(agent);
    return agent;
  }

  async killAll(): Promise<void> {
    await Promise.all(this.agents.map((a) => a.kill()));
  }
}
