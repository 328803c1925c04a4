import { chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuditScope } from '../../core/audit-scope.js';
import { conflict, DomainError } from '../../core/errors.js';
import { AttemptLimiter } from '../../security/attempt-limiter.js';
import { newSetupCode, sameHash, sha256 } from '../../security/secrets.js';
import { isDuplicateKey } from '../../store/collection.js';
import type { NetworkDoc } from '../../store/records.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import type { SessionService } from './sessions.js';
import { duplicateUserMessage, newUserDoc, type NewUser } from './users.js';

const setupSetting = 'setup';

export interface SetupInput extends NewUser {
  setupCode: string;
  network: { name: string; description?: string; address: string; port: number };
}

/**
 * First run: while no user exists, a one-time code is written to `<data-dir>/setup-code`
 * (mode 0600, never logged) and its hash kept in the store. POST /setup trades it for the first
 * global administrator and the network record.
 */
export class SetupService {
  /** Five wrong codes per client address in fifteen minutes. */
  private readonly limiter = new AttemptLimiter(5, 15 * 60);

  constructor(private readonly deps: ServiceDeps, private readonly sessions: SessionService) {}

  get codePath(): string {
    return join(this.deps.dataDir, 'setup-code');
  }

  /**
   * Called at start: a fresh code each start while setup is pending, so an old leaked code is
   * dead. Answers the file holding it (undefined once setup is done), for the start to say where.
   */
  async prepare(): Promise<string | undefined> {
    if ((await this.deps.repos.users.count({})) > 0) return undefined;
    const code = newSetupCode();
    await writeFile(this.codePath, code + '\n', { mode: 0o600 });
    await chmod(this.codePath, 0o600);
    const setting = { _id: setupSetting, value: { codeHash: sha256(code), done: false }, updatedAt: nowIso(this.deps) };
    if (!(await this.deps.repos.settings.replace({ _id: setupSetting }, setting))) await this.deps.repos.settings.insert(setting);
    return this.codePath;
  }

  /** Whether setup has been done: a user exists. Public, so the web UI knows to ask for the code. */
  async done(): Promise<boolean> {
    return (await this.deps.repos.users.count({})) > 0;
  }

  async run(input: SetupInput, clientAddress: string, audit: AuditScope) {
    audit.detail({ username: input.username, network: input.network.name });
    const slot = this.limiter.reserve(clientAddress);
    const setting = await this.deps.repos.settings.findById(setupSetting);
    const value = setting?.value as { codeHash?: string; done?: boolean } | undefined;
    if (!value?.codeHash || value.done || (await this.deps.repos.users.count({})) > 0) {
      slot.release();
      throw new DomainError('setup_done');
    }
    if (!sameHash(value.codeHash, sha256(input.setupCode.trim()))) throw new DomainError('invalid_setup_code');
    slot.release();
    // Claim setup atomically: of two concurrent correct attempts only one passes this update.
    const claimed = await this.deps.repos.settings.update(
      { _id: setupSetting, 'value.done': false },
      { value: { done: true }, updatedAt: nowIso(this.deps) },
    );
    if (claimed === 0) throw new DomainError('setup_done');

    const admin = await newUserDoc(this.deps, { ...input, globalAdmin: true, globalPermissions: [] }, false);
    const now = nowIso(this.deps);
    const network: NetworkDoc = {
      _id: 'network',
      name: input.network.name,
      description: input.network.description ?? '',
      address: input.network.address,
      port: input.network.port,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.deps.repos.users.insert(admin);
    } catch (e) {
      await this.deps.repos.settings.update({ _id: setupSetting }, { value: { codeHash: value.codeHash, done: false } });
      if (isDuplicateKey(e)) throw conflict(duplicateUserMessage(e.field));
      throw e;
    }
    await this.deps.repos.network.delete({ _id: 'network' });
    await this.deps.repos.network.insert(network);
    await rm(this.codePath, { force: true });
    audit.actorUserId = admin._id;
    audit.target(admin._id);
    const { sessionId } = await this.sessions.create(admin._id);
    return { user: admin, sessionId };
  }
}
