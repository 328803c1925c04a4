import type { Caller } from '../../core/caller.js';
import { DomainError } from '../../core/errors.js';
import type { Permission } from '../../core/permission-names.js';
import type { ServerDoc, UserDoc } from '../../store/records.js';
import type { Shared } from '../../store/collection.js';
import type { ServiceDeps } from '../deps.js';
import type { Access } from '../identity/access.js';
import type { AuthService } from '../identity/auth.js';
import { callerUser } from '../identity/caller-user.js';
import type { ServerAggregate } from '../servers/aggregate.js';
import type { ServerService } from '../servers/servers.js';

/** Where the SFTP server listens once started; absent while SFTP is off. */
export interface SftpListening {
  host: string;
  port: number;
  hostKeyFingerprint: string;
}

/** The shortest server id prefix an SFTP username carries (the contract's "first 8 characters"). */
export const minPrefixLength = 8;

/** Why an SFTP sign-in was refused, as `cairn_sftp_login_failures_total` counts it. */
export type SftpLoginFailure = 'bad_username' | 'bad_credentials' | 'throttled' | 'no_server' | 'too_many_connections';

/** A signed-in SFTP user on one server. */
export interface SftpTarget {
  caller: Caller;
  serverId: string;
}

const prefixRange = (prefix: string) => ({ _id: { $gte: prefix, $lt: `${prefix}\uffff` } });

/**
 * Who may open a server's files with SFTP, and as which name: `<username>.<server id prefix>`.
 * Sign-in goes through the sign-in throttles (AuthService); every file operation after it is the
 * files API's own check, made with the caller this returns.
 */
export class SftpAccess {
  private listening?: SftpListening;
  private readonly failureListeners: ((reason: SftpLoginFailure) => void)[] = [];

  constructor(
    private readonly deps: ServiceDeps,
    private readonly access: Access,
    private readonly auth: Pick<AuthService, 'passwordOnly'>,
    private readonly aggregate: Pick<ServerAggregate, 'load'>,
    private readonly servers: Pick<ServerService, 'get'>,
  ) {}

  listen(listening: SftpListening): void {
    this.listening = listening;
  }

  onLoginFailure(listener: (reason: SftpLoginFailure) => void): void {
    this.failureListeners.push(listener);
  }

  failed(reason: SftpLoginFailure): void {
    for (const listener of this.failureListeners) listener(reason);
  }

  /** Server detail with `sftp` beside it: where this caller connects to the server's files. */
  async serverDetail(caller: Caller, serverId: string) {
    const detail = await this.servers.get(caller, serverId);
    if (!this.listening) return detail;
    const { host, port, hostKeyFingerprint } = this.listening;
    return { ...detail, sftp: { host, port, username: `${caller.user.username}.${await this.prefixOf(serverId)}`, hostKeyFingerprint } };
  }

  /** Ids are UUIDv7, whose first characters are a timestamp: servers made in the same minute share 8, so one more is added until it is unique. */
  private async prefixOf(serverId: string): Promise<string> {
    const sharing = (await this.deps.repos.servers.findShared(prefixRange(serverId.slice(0, minPrefixLength)))).map((d) => d._id).filter((id) => id !== serverId);
    let length = minPrefixLength;
    while (length < serverId.length && sharing.some((id) => id.startsWith(serverId.slice(0, length)))) length += 1;
    return serverId.slice(0, length);
  }

  /** `name.prefix` split at its last dot; undefined when either part is missing or the prefix is short. */
  static parseUsername(login: string): { username: string; prefix: string } | undefined {
    const dot = login.lastIndexOf('.');
    const prefix = login.slice(dot + 1).toLowerCase();
    if (dot <= 0 || prefix.length < minPrefixLength || !/^[0-9a-f-]+$/.test(prefix)) return undefined;
    return { username: login.slice(0, dot), prefix };
  }

  async byPassword(login: string, password: string, clientAddress: string): Promise<SftpTarget | undefined> {
    const parsed = SftpAccess.parseUsername(login);
    if (!parsed) return this.refuse('bad_username');
    let user: UserDoc | undefined;
    try {
      user = await this.auth.passwordOnly(parsed.username, password, clientAddress);
    } catch (e) {
      if (e instanceof DomainError && e.code === 'too_many_attempts') return this.refuse('throttled');
      throw e;
    }
    if (!user) return this.refuse('bad_credentials');
    return this.target(user, parsed.prefix);
  }

  /** The user whose name `login` starts with, for a public key sign-in (the key is checked by the caller). */
  async userOf(login: string): Promise<Shared<UserDoc> | undefined> {
    const parsed = SftpAccess.parseUsername(login);
    if (!parsed) return undefined;
    return (await this.deps.repos.users.findOne({ usernameKey: parsed.username.toLowerCase() })) ?? undefined;
  }

  /** The one server the user can see whose id starts with `prefix`. */
  async target(user: Shared<UserDoc>, prefix: string): Promise<SftpTarget | undefined> {
    const caller: Caller = { kind: 'USER', user: callerUser(user) };
    const candidates = await this.deps.repos.servers.findShared(prefixRange(prefix));
    const visible: Shared<ServerDoc>[] = [];
    for (const doc of candidates) if (await this.access.may(caller, doc.teamId, 'servers.read')) visible.push(doc);
    if (visible.length !== 1) return this.refuse('no_server');
    return { caller, serverId: visible[0]._id };
  }

  /**
   * The caller as the store says now, while they still hold `permission` on the server; undefined
   * once the user, the server or the permission is gone (an open session then ends).
   */
  async recheck(target: SftpTarget, permission: Permission = 'files.read'): Promise<SftpTarget | undefined> {
    const user = await this.deps.repos.users.findById(target.caller.user._id);
    if (!user || user.usernameKey !== target.caller.user.username.toLowerCase()) return undefined;
    const caller: Caller = { kind: 'USER', user: callerUser(user) };
    try {
      await this.aggregate.load(caller, target.serverId, permission);
    } catch (e) {
      if (e instanceof DomainError) return undefined;
      throw e;
    }
    return { caller, serverId: target.serverId };
  }

  /** Throws the files API's refusal unless the caller holds `permission` on the server now. */
  async require(target: SftpTarget, permission: Permission): Promise<void> {
    await this.aggregate.load(target.caller, target.serverId, permission);
  }

  private refuse(reason: SftpLoginFailure): undefined {
    this.failed(reason);
    return undefined;
  }
}
