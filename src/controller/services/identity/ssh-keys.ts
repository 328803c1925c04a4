import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { DomainError, invalidRequest, notFound } from '../../core/errors.js';
import { maxSshKeysPerUser } from '../../schemas/sftp.js';
import { parseSshPublicKey } from '../../security/ssh-public-key.js';
import type { SshKeyDoc } from '../../store/ssh-key-records.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import type { Access } from './access.js';

const view = (doc: SshKeyDoc) => ({ id: doc._id, name: doc.name, fingerprint: doc.fingerprint, createdAt: doc.createdAt });

/** The public keys a user signs in to SFTP with: their own to add, list and remove. */
export class SshKeyService {
  constructor(private readonly deps: ServiceDeps, private readonly access: Access) {}

  async create(caller: Caller, input: { name: string; publicKey: string }, audit: AuditScope) {
    this.access.requireUnscoped(caller);
    const key = parseSshPublicKey(input.publicKey);
    if ('problem' in key) throw invalidRequest(`body.publicKey: ${key.problem}.`);
    const { sshKeys } = this.deps.repos;
    const mine = await sshKeys.find({ userId: caller.user._id });
    if (mine.length >= maxSshKeysPerUser) throw new DomainError('conflict', `You have ${maxSshKeysPerUser} SSH keys, the most a user may: remove one first.`);
    if (mine.some((k) => k.fingerprint === key.fingerprint)) throw new DomainError('conflict', `body.publicKey: you added this key already (${key.fingerprint}).`);
    const doc: SshKeyDoc = { _id: this.deps.ids.next(), userId: caller.user._id, name: input.name, type: key.type, blob: key.blob, fingerprint: key.fingerprint, createdAt: nowIso(this.deps) };
    await sshKeys.insert(doc);
    audit.target(doc._id).detail({ name: doc.name, fingerprint: doc.fingerprint });
    return view(doc);
  }

  async list(caller: Caller) {
    const docs = await this.deps.repos.sshKeys.find({ userId: caller.user._id });
    return { items: docs.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map(view) };
  }

  async remove(caller: Caller, keyId: string, audit: AuditScope): Promise<void> {
    audit.target(keyId);
    this.access.requireUnscoped(caller);
    if ((await this.deps.repos.sshKeys.delete({ _id: keyId, userId: caller.user._id })) === 0) throw notFound('SSH key');
  }

  /** The user's key with this fingerprint, for an SFTP sign-in. */
  async find(userId: string, fingerprint: string): Promise<SshKeyDoc | undefined> {
    return (await this.deps.repos.sshKeys.findOne({ userId, fingerprint })) ?? undefined;
  }
}
