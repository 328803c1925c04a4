import { randomBytes } from 'node:crypto';
import type { NodeFleet } from '../actors/fleet.js';
import { ConnectRefusedError, EnrollmentRefusedError } from '../link/errors.js';
import { InvalidCredentialError, NodeCredentials } from '../link/node-credentials.js';
import { randomBase62, sha256 } from '../security/secrets.js';
import type { AuditService } from './audit.js';
import { loadLinkSigningKey } from './link-signing-key.js';
import { nowIso, type ServiceDeps } from './deps.js';

export const enrollmentTokenPrefix = 'cairn_enr_';
/** The contract: an enrollment token expires after one hour by default. */
export const defaultEnrollmentTtlMs = 60 * 60 * 1000;

/**
 * Enrollment tokens and Node credentials: issues one-time tokens (stored as SHA-256), turns a
 * token into a signed credential once, and checks credentials on every Connect. This is the
 * Agent link's gate; the link itself only carries bytes.
 */
export class NodeEnrollment {
  private credentials?: NodeCredentials;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly fleet: NodeFleet,
    private readonly audit: AuditService,
    private readonly ttlMs = defaultEnrollmentTtlMs,
  ) {}

  /** Loads the signing key from the store, generated at first start. */
  async start(): Promise<void> {
    this.credentials = await loadLinkSigningKey(this.deps.repos.settings, this.deps.dataDir, nowIso(this.deps));
  }

  /** A new one-time token for the Node; any earlier unused one stops working. */
  async issueToken(nodeId: string): Promise<{ token: string; expiresAt: string }> {
    await this.deps.repos.enrollmentTokens.delete({ nodeId });
    const token = enrollmentTokenPrefix + randomBase62(40);
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + this.ttlMs).toISOString();
    await this.deps.repos.enrollmentTokens.insert({
      _id: this.deps.ids.next(), nodeId, hash: sha256(token), createdAt: now.toISOString(), expiresAt,
    });
    return { token, expiresAt };
  }

  async forgetTokens(nodeId: string): Promise<void> {
    await this.deps.repos.enrollmentTokens.delete({ nodeId });
  }

  /** Redeems a token; refusals and successes are audited with actorKind AGENT (never the token). */
  async enroll(input: { enrollmentToken: string; hostname: string; agentVersion: string }): Promise<{ nodeId: string; credential: string }> {
    const details = { hostname: input.hostname.slice(0, 253), agentVersion: input.agentVersion.slice(0, 64) };
    try {
      const result = await this.redeem(input.enrollmentToken);
      await this.audit.recordSystem({ actorKind: 'AGENT', action: 'node.enroll', targetKind: 'node', targetId: result.nodeId, outcome: 'SUCCESS', details });
      this.deps.logger.info({ event: 'node_enrolled', nodeId: result.nodeId, hostname: details.hostname }, 'Node enrolled');
      return result;
    } catch (e) {
      if (!(e instanceof EnrollmentRefusedError)) throw e;
      await this.audit.recordSystem({
        actorKind: 'AGENT', action: 'node.enroll', targetKind: 'node', targetId: e.nodeId ?? '', outcome: 'DENIED', details: { ...details, reason: e.reason },
      });
      this.deps.logger.warn({ event: 'enrollment_refused', reason: e.reason, nodeId: e.nodeId }, 'enrollment refused');
      throw e;
    }
  }

  private async redeem(token: string): Promise<{ nodeId: string; credential: string }> {
    const record = await this.deps.repos.enrollmentTokens.findOne({ hash: sha256(token) });
    if (!record) throw new EnrollmentRefusedError('unknown_token');
    if (record.usedAt) throw new EnrollmentRefusedError('used_token', record.nodeId);
    if (record.expiresAt <= nowIso(this.deps)) throw new EnrollmentRefusedError('expired_token', record.nodeId);
    const node = await this.deps.repos.nodes.findById(record.nodeId);
    if (!node) throw new EnrollmentRefusedError('unknown_token');
    if (node.adminState === 'REVOKED') throw new EnrollmentRefusedError('node_revoked', node._id);
    // Compare-and-set: of two concurrent redemptions exactly one marks the token used.
    const now = nowIso(this.deps);
    const won = await this.deps.repos.enrollmentTokens.update({ _id: record._id, usedAt: { $exists: false } }, { usedAt: now });
    if (won !== 1) throw new EnrollmentRefusedError('used_token', node._id);
    const credentialId = randomBytes(16).toString('base64url');
    const credential = await this.requireCredentials().issue({ nodeId: node._id, credentialId }, this.deps.clock.now());
    await this.deps.repos.nodes.update({ _id: node._id }, { credentialId, enrolledAt: now, updatedAt: now });
    this.fleet.enrolled(node._id);
    return { nodeId: node._id, credential };
  }

  /** The Node a credential belongs to, if it is still that Node's current credential and the Node is not revoked. */
  async authenticate(credential: string): Promise<string> {
    let claims;
    try {
      claims = await this.requireCredentials().verify(credential);
    } catch (e) {
      if (e instanceof InvalidCredentialError) throw new ConnectRefusedError('invalid_credential');
      throw e;
    }
    const node = await this.deps.repos.nodes.findById(claims.nodeId);
    if (!node) throw new ConnectRefusedError('unknown_node');
    if (node.adminState === 'REVOKED') throw new ConnectRefusedError('node_revoked');
    if (node.credentialId !== claims.credentialId) throw new ConnectRefusedError('superseded_credential');
    return node._id;
  }

  private requireCredentials(): NodeCredentials {
    if (!this.credentials) throw new Error('Node credentials are not loaded yet');
    return this.credentials;
  }
}
