import { createServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import ssh2, { type AuthContext, type Connection } from 'ssh2';
import type { Logger } from '../../../shared/logger.js';
import { AuditScope } from '../../core/audit-scope.js';
import type { SshHostKey } from '../../security/ssh-host-key.js';
import type { AuditService } from '../../services/audit/audit.js';
import type { FileService } from '../../services/files/files.js';
import type { SftpAccess, SftpTarget } from '../../services/files/sftp-access.js';
import type { SshKeyService } from '../../services/identity/ssh-keys.js';
import { SftpGate } from './sftp-gate.js';
import { SftpOperations, type SessionCounts } from './sftp-operations.js';
import { verifyKeyLogin } from './sftp-key-login.js';

export interface SftpServerOptions {
  host: string;
  port: number;
  hostKey: SshHostKey;
  access: SftpAccess;
  keys: SshKeyService;
  files: FileService;
  audit: AuditService;
  logger: Logger;
  /** How often an open session checks that its user still holds `files.read` on the server (a revoked membership ends it). */
  recheckMs?: number;
}

/** A connection must sign in within this time from its TCP accept, and in at most this many tries. */
const signInMs = 30_000;
const maxSignInTries = 6;
const maxSessionsPerConnection = 10;
const methods: AuthContext['method'][] = ['publickey', 'password'];

/**
 * The SFTP server: SSH with the SFTP subsystem and nothing else (no shell, no exec, no
 * forwarding). It signs users in (SftpAccess, the sign-in throttles), then hands each request to
 * SftpOperations, which goes through the files service as the API does.
 */
export class SftpServer {
  private readonly ssh: ssh2.Server;
  /** The listener is this server's own, so a connection is counted (and refused) before ssh2 spends anything on it. */
  private readonly listener: NetServer;
  private readonly gate = new SftpGate();
  /** What to call when an admitted socket signs in, by `address:port` (how ssh2 names its connection). */
  private readonly signingIn = new Map<string, () => void>();
  private readonly sockets = new Set<Socket>();

  constructor(private readonly options: SftpServerOptions) {
    this.ssh = new ssh2.Server({ hostKeys: [options.hostKey.privateKey], ident: 'Cairn' }, (client, info) => this.accept(client, info.ip, info.port));
    this.listener = createServer((socket) => this.admit(socket));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.listener.once('error', reject);
      this.listener.listen(this.options.port, this.options.host, () => {
        this.listener.off('error', reject);
        resolve();
      });
    });
    return (this.listener.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.listener.close(() => resolve()));
  }

  /**
   * A TCP connection: past the gate's counts it is closed at once, before any SSH; let in, it has
   * `signInMs` from now to sign in, however slowly it sends its first bytes.
   */
  private admit(socket: Socket): void {
    const address = socket.remoteAddress ?? '';
    const ticket = this.gate.admit(address);
    if (!ticket) {
      socket.destroy();
      this.options.access.failed('too_many_connections');
      return;
    }
    const key = `${address}:${socket.remotePort}`;
    const signInTimer = setTimeout(() => socket.destroy(), signInMs);
    this.signingIn.set(key, () => {
      clearTimeout(signInTimer);
      ticket.signedIn();
    });
    this.sockets.add(socket);
    socket.once('close', () => {
      clearTimeout(signInTimer);
      ticket.release();
      this.signingIn.delete(key);
      this.sockets.delete(socket);
    });
    this.ssh.injectSocket(socket);
  }

  private accept(client: Connection, clientAddress: string, clientPort: number): void {
    client.on('error', () => undefined);
    // Each SFTP request waits for its answer: Nagle's delay would hold every small answer back 40 ms.
    (client as Connection & { setNoDelay(noDelay: boolean): void }).setNoDelay(true);
    const signedInNow = this.signingIn.get(`${clientAddress}:${clientPort}`);
    let target: SftpTarget | undefined;
    let tries = 0;
    client.on('authentication', (ctx) => {
      void this.signIn(ctx, clientAddress).then((signedIn) => {
        if (signedIn) {
          target = signedIn;
          ctx.accept();
          return;
        }
        tries += 1;
        if (tries >= maxSignInTries) client.end();
        else ctx.reject(methods);
      }, (e: unknown) => {
        this.options.logger.warn({ event: 'sftp_sign_in_error', err: e }, 'SFTP sign-in failed on an error');
        ctx.reject(methods);
      });
    });
    client.on('ready', () => {
      signedInNow?.();
      if (target) this.session(client, target, clientAddress);
    });
  }

  private async signIn(ctx: AuthContext, clientAddress: string): Promise<SftpTarget | undefined> {
    if (ctx.method === 'password') return this.options.access.byPassword(ctx.username, ctx.password, clientAddress);
    if (ctx.method === 'publickey') return verifyKeyLogin(ctx, this.options.access, this.options.keys);
    return undefined;
  }

  /**
   * A signed-in connection: audited at its start and end, rechecked on a timer, SFTP only, and at
   * most `maxSessionsPerConnection` channels open at once (OpenSSH's own MaxSessions).
   */
  private session(client: Connection, signedIn: SftpTarget, clientAddress: string): void {
    const { audit, logger, files, access } = this.options;
    let target = signedIn;
    const live = new Set<SftpOperations>();
    let channels = 0;
    const counts: SessionCounts = { filesWritten: 0, bytesWritten: 0, filesDeleted: 0 };
    // A closed channel's counts are added up at once, so a long connection holds only its open ones.
    const finish = (ops: SftpOperations) => {
      if (!live.delete(ops)) return;
      ops.end();
      for (const key of Object.keys(counts) as (keyof SessionCounts)[]) counts[key] += ops.counts[key];
    };
    const record = (action: string, details: Record<string, unknown>) =>
      audit.record(new AuditScope(action, 'server').target(target.serverId).detail({ clientAddress, ...details }), target.caller, 'SUCCESS')
        .catch((e: unknown) => logger.warn({ event: 'sftp_audit_failed', err: e }, 'could not audit an SFTP session'));
    void record('server.sftp.open', {});
    const recheck = setInterval(() => {
      void access.recheck(target).then((now) => {
        if (now) target = now;
        else client.end();
      }, () => undefined);
    }, this.options.recheckMs ?? 2_000);
    client.on('session', (acceptSession, rejectSession) => {
      if (channels >= maxSessionsPerConnection) return rejectSession();
      channels += 1;
      const session = acceptSession();
      let ops: SftpOperations | undefined;
      // ssh2 refuses every request of a session no listener takes: shell, exec, pty and forwarding alike.
      session.on('sftp', (acceptSftp) => {
        ops = new SftpOperations(acceptSftp(), () => target, files, access);
        live.add(ops);
      });
      session.once('close', () => {
        channels -= 1;
        if (ops) finish(ops);
      });
    });
    client.on('close', () => {
      clearInterval(recheck);
      for (const ops of [...live]) finish(ops);
      void record('server.sftp.close', { ...counts });
    });
  }
}
