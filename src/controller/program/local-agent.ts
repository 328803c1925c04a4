import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { isIPv6 } from 'node:net';
import { backoffDelay, defaultBackoff, type BackoffPolicy } from '../../shared/backoff.js';
import { CredentialStore } from '../../shared/credential-store.js';
import { formatGamePorts } from '../../shared/game-ports.js';
import type { PortRange } from '../../shared/link/messages.js';
import type { Logger } from '../../shared/logger.js';
import { programCommand, type ProgramCommand } from '../../shared/programs.js';
import { ConnectRefusedError } from '../link/errors.js';
import { localAgentDir, moveFormerLocalAgentDir } from './local-agent-dir.js';
import { localAgentEnvironment } from './local-agent-env.js';
import type { AuditService } from '../services/audit/audit.js';
import type { NodeEnrollment } from '../services/nodes/enrollment.js';
import type { NodeService } from '../services/nodes/nodes.js';

/** The name of the Node the local Agent runs as; it is created on the first `--local-agent` start. */
export const localNodeName = 'local';
export { localAgentDir } from './local-agent-dir.js';

/** A child that ran this long is considered healthy: its next crash restarts quickly again. */
const stableAfterMs = 60_000;
/** How long the Agent gets to leave after SIGTERM before it is killed. */
const stopGraceMs = 5_000;

/** The host the local Agent dials: a wildcard listen address is reached over loopback. */
export const dialHost = (host: string) => (host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host);

/** HOST:PORT of the local Agent's `--controller`. */
export function dialAddress(host: string, port: number): string {
  const target = dialHost(host);
  return isIPv6(target) ? `[${target}]:${port}` : `${target}:${port}`;
}

export interface LocalAgentDeps {
  /** The Controller's data dir; the Agent's is beside it, `<data-dir>-local-agent`. */
  dataDir: string;
  /** HOST:PORT of the Controller's Agent link, as the child dials it. */
  controllerAddress: string;
  /** When the link runs TLS: the CA file the Agent verifies it with, and the name to check when the dialled host is not in the certificate. */
  tls?: { caFile: string; name?: string };
  /** The Agent's `--game-ports`; the Agent's default when absent. */
  gamePorts?: PortRange;
  nodes: NodeService;
  enrollment: NodeEnrollment;
  audit: AuditService;
  logger: Logger;
  command?: ProgramCommand;
  backoff?: BackoffPolicy;
}

/**
 * `cairn-controller --local-agent`: the real `cairn-agent` program as a child process, enrolled
 * as the Node `local` without anyone handling a token. Each (re)start checks the credential the
 * Agent keeps in its data dir; only when it is missing or no longer accepted is a one-time
 * token issued, and it travels in the environment, never in argv (the process list is public).
 * A child that dies is started again with backoff. Game servers are not the Agent's children
 * (they belong to their supervisors), so stopping the Agent leaves them running. The child gets
 * an allowlisted environment (local-agent-env.ts), never the Controller's own.
 */
export class LocalAgent {
  private child?: ChildProcess;
  private exited?: Promise<void>;
  private stopping = false;
  private attempt = 0;
  private restartTimer?: NodeJS.Timeout;
  private dirMoved = false;

  constructor(private readonly deps: LocalAgentDeps) {}

  get agentDir(): string {
    return localAgentDir(this.deps.dataDir);
  }

  /** The running child's pid, while there is one. */
  get pid(): number | undefined {
    return this.child?.exitCode === null && this.child.signalCode === null ? this.child.pid : undefined;
  }

  async start(): Promise<void> {
    if (!this.dirMoved) {
      await moveFormerLocalAgentDir(this.deps.dataDir, this.deps.logger);
      this.dirMoved = true;
    }
    const token = await this.enrollmentToken();
    if (token === null || this.stopping) return;
    this.spawn(token);
  }

  /** Ends the child (SIGTERM, then SIGKILL after a grace period) and stops restarting it. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || !this.exited || this.pid === undefined) return;
    child.kill('SIGTERM');
    let grace: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      grace = setTimeout(() => {
        child.kill('SIGKILL');
        resolve();
      }, stopGraceMs);
    });
    await Promise.race([this.exited, killed]);
    clearTimeout(grace);
    await this.exited;
  }

  /**
   * The token the child needs: undefined when its stored credential is still accepted, a fresh
   * one-time token otherwise (creating the Node on first use), null when the Node is revoked
   * (final; an administrator deletes it to let the next start create a new one).
   */
  private async enrollmentToken(): Promise<string | undefined | null> {
    const store = new CredentialStore(this.agentDir);
    const stored = await store.load().catch(() => undefined);
    if (stored) {
      try {
        await this.deps.enrollment.authenticate(stored.credential);
        return undefined;
      } catch (e) {
        if (!(e instanceof ConnectRefusedError)) throw e;
        this.deps.logger.warn({ event: 'local_agent_reenroll', reason: e.reason }, 'the local Agent\'s credential is no longer accepted; enrolling it again');
        // The Agent prefers a stored credential to a token, so the refused one must go.
        await rm(store.path, { force: true });
      }
    }
    let node = await this.deps.nodes.findByName(localNodeName);
    if (node?.adminState === 'REVOKED') {
      this.deps.logger.error({ event: 'local_agent_revoked', nodeId: node._id }, `the Node "${localNodeName}" is revoked; delete it to let --local-agent create a new one`);
      return null;
    }
    if (!node) {
      node = await this.deps.nodes.createForController(localNodeName);
      await this.deps.audit.recordSystem({
        actorKind: 'SYSTEM', action: 'node.create', targetKind: 'node', targetId: node._id, outcome: 'SUCCESS', details: { name: node.name, localAgent: true },
      });
      this.deps.logger.info({ event: 'local_node_created', nodeId: node._id }, `created the Node "${localNodeName}" for the local Agent`);
    }
    return (await this.deps.enrollment.issueToken(node._id)).token;
  }

  private spawn(token: string | undefined): void {
    const { command, args } = this.deps.command ?? programCommand('cairn-agent');
    const argv = [...args, '--controller', this.deps.controllerAddress, '--data-dir', this.agentDir];
    if (this.deps.tls) argv.push('--controller-ca', this.deps.tls.caFile);
    if (this.deps.tls?.name) argv.push('--controller-tls-name', this.deps.tls.name);
    if (this.deps.gamePorts) argv.push('--game-ports', formatGamePorts(this.deps.gamePorts));
    const env = localAgentEnvironment(process.env, { CAIRN_LOG_LEVEL: this.deps.logger.level, CAIRN_ENROLLMENT_TOKEN: token });
    const startedAt = Date.now();
    // The child's output goes to our stderr (stdout carries only the listening line); the IPC
    // channel lets the Agent notice when this Controller is gone, however it ended.
    const child = spawn(command, argv, { env, stdio: ['ignore', 2, 2, 'ipc'] });
    this.child = child;
    this.exited = new Promise<void>((resolve) => {
      let settled = false;
      const ended = (detail: { code?: number | null; signal?: string | null; err?: Error }) => {
        if (settled) return;
        settled = true;
        resolve();
        this.exitedUnexpectedly(detail, Date.now() - startedAt);
      };
      child.once('exit', (code, signal) => ended({ code, signal }));
      child.once('error', (err) => ended({ err }));
    });
    this.deps.logger.info({ event: 'local_agent_started', pid: child.pid, dataDir: this.agentDir, enrolling: token !== undefined }, 'local Agent started');
  }

  private exitedUnexpectedly(detail: { code?: number | null; signal?: string | null; err?: Error }, ranMs: number): void {
    if (this.stopping) return;
    if (ranMs >= stableAfterMs) this.attempt = 0;
    const delay = backoffDelay(this.attempt++, this.deps.backoff ?? defaultBackoff);
    this.deps.logger.warn({ event: 'local_agent_exited', ...detail, inMs: delay }, 'the local Agent exited; starting it again');
    this.restartTimer = setTimeout(() => {
      this.start().catch((err: unknown) => {
        this.deps.logger.error({ err }, 'restarting the local Agent failed');
        this.exitedUnexpectedly({ err: err as Error }, 0);
      });
    }, delay);
  }
}
