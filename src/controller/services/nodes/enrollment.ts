import { randomBytes } from 'node:crypto';
import type { NodeFleet } from '../../actors/fleet.js';
import { ConnectRefusedError, EnrollmentRefusedError } from '../../link/errors.js';
import { InvalidCredentialError, NodeCredentials } from '../../link/node-credentials.js';
import type { EnrollmentTokenDoc, NodeDoc } from '../../store/records.js';
import { randomBase62, sameHash, sha256 } from '../../security/secrets.js';
import type { AuditService } from '../audit/audit.js';
import { loadLinkSigningKey } from './link-signing-key.js';
import { RefusalAuditBudget } from './refusal-audit-budget.js';
import { nowIso, type ServiceDeps } from '../deps.js';

export const enrollmentTokenPrefix = 'cairn_enr_';
/** The contract: an enrollment token expires after one hour by default. */
export const defaultEnrollmentTtlMs = 60 * 60 * 1000;
/**
 * How long after its use a token still answers a retry of the same attempt (a lost answer): long
 * enough for an Agent's backoff to come round a few times, short enough that a stolen data dir
 * is worth no more than its credential file.
 */
export const enrollmentReplayWindowMs = 15 * 60 * 1000;
/** How many times a redemption that lost reads the token for the winner's use: 2 s at 20 ms apart. */
const usedTokenReads = 100;

/** Shorter attempt ids are not random enough to stand for the Agent that drew them. */
const minAttemptIdLength = 16;
const isAttemptId = (id: string) => id.length >= minAttemptIdLength;

export interface EnrollInput {
  enrollmentToken: string;
  hostname: string;
  agentVersion: string;
  /** Absent or empty from Agents older than the field: their retries are refused as before. */
  enrollmentAttemptId?: string;
}

type Redeemed = { nodeId: string; credential: string; retry: boolean };

/**
 * Enrollment tokens and Node credentials: issues one-time tokens (stored as SHA-256), turns a
 * token into a signed credential once, and checks credentials on every Connect. This is the
 * Agent link's gate; the link itself only carries bytes.
 */
export class NodeEnrollment {
  private credentials?: NodeCredentials;
  /** Enroll is open to anyone who reaches the link: 20 audited refusals per peer in 15 minutes. */
  private readonly refusalAudits = new RefusalAuditBudget(20, 15 * 60);

  constructor(
    private readonly deps: ServiceDeps,
    private readonly fleet: NodeFleet,
    private readonly audit: AuditService,
    private readonly ttlMs = defaultEnrollmentTtlMs,
  ) {}

  /** Loads the signing key from the store, generated at first start. */
  async start(): Promise<void> {
    this.credentials = await loadLinkSigningKey(this.deps.repos.settings, this.deps.secrets, this.deps.dataDir, nowIso(this.deps));
  }

  /** A new one-time token for the Node; any earlier unused one stops working. */
  async issueToken(nodeId: string): Promise<{ token: string; expiresAt: string }> {
    await this.deps.repos.enrollmentTokens.delete({ nodeId });
    const token = enrollmentTokenPrefix + randomBase62(40);
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + this.ttlMs).toISOString();
    await this.deps.repos.enrollmentTokens.insert({
      _id: this.deps.ids.next(), nodeId, hash: sha256(token), createdAt: now.toISOString(), expiresAt, uses: 0,
    });
    return { token, expiresAt };
  }

  async forgetTokens(nodeId: string): Promise<void> {
    await this.deps.repos.enrollmentTokens.delete({ nodeId });
  }

  /**
   * Redeems a token; refusals and successes are audited with actorKind AGENT (never the token nor
   * the attempt id). A retry of the same attempt is audited as a success with `retry: true`.
   * Refusals of one peer (its address) beyond the audit budget are refused unaudited, and the
   * next one audited says how many (`unaudited`).
   */
  async enroll(input: EnrollInput, peer: string): Promise<{ nodeId: string; credential: string }> {
    const details = { hostname: input.hostname.slice(0, 253), agentVersion: input.agentVersion.slice(0, 64) };
    try {
      const { retry, ...result } = await this.redeem(input.enrollmentToken, input.enrollmentAttemptId ?? '');
      await this.audit.recordSystem({
        actorKind: 'AGENT', action: 'node.enroll', targetKind: 'node', targetId: result.nodeId, outcome: 'SUCCESS', details: retry ? { ...details, retry } : details,
      });
      this.deps.logger.info({ event: 'node_enrolled', nodeId: result.nodeId, hostname: details.hostname, retry }, 'Node enrolled');
      return result;
    } catch (e) {
      if (!(e instanceof EnrollmentRefusedError)) throw e;
      const budget = this.refusalAudits.take(peer);
      if (!budget.audit) throw e;
      const counted = budget.unaudited > 0 ? { unaudited: budget.unaudited } : {};
      await this.audit.recordSystem({
        actorKind: 'AGENT', action: 'node.enroll', targetKind: 'node', targetId: e.nodeId ?? '', outcome: 'DENIED', details: { ...details, peer, reason: e.reason, ...counted },
      });
      this.deps.logger.warn({ event: 'enrollment_refused', reason: e.reason, nodeId: e.nodeId, peer, ...counted }, 'enrollment refused');
      throw e;
    }
  }

  private async redeem(token: string, attemptId: string): Promise<Redeemed> {
    const record = await this.deps.repos.enrollmentTokens.findOne({ hash: sha256(token) });
    if (!record) throw new EnrollmentRefusedError('unknown_token');
    if (record.usedAt) return this.retry(record, attemptId);
    if (record.expiresAt <= nowIso(this.deps)) throw new EnrollmentRefusedError('expired_token', record.nodeId);
    const node = await this.deps.repos.nodes.findById(record.nodeId);
    if (!node) throw new EnrollmentRefusedError('unknown_token');
    if (node.adminState === 'REVOKED') throw new EnrollmentRefusedError('node_revoked', node._id);
    // Compare-and-set: of two concurrent redemptions exactly one marks the token used; the other is
    // answered as a retry (the same attempt) or refused (any other). Written over the token's version
    // (`uses`), since FerretDB checks a plain conditional write's filter apart from the write.
    const now = nowIso(this.deps);
    const credentialId = randomBytes(16).toString('base64url');
    const use: Partial<EnrollmentTokenDoc> = { usedAt: now, credentialId, ...(isAttemptId(attemptId) ? { attemptHash: sha256(attemptId) } : {}), uses: 1 };
    const tokens = this.deps.repos.enrollmentTokens;
    const won = record.uses === 0
      ? await tokens.updateVersions([{ id: record._id, field: 'uses', value: 0 }], use)
      : await tokens.update({ _id: record._id, usedAt: { $exists: false } }, use);
    if (won !== 1) {
      const used = await this.usedToken(record._id);
      if (!used?.usedAt) throw new EnrollmentRefusedError('unknown_token');
      return this.retry(used, attemptId);
    }
    return { nodeId: node._id, credential: await this.complete(node, credentialId, now), retry: false };
  }

  /**
   * The token as the redemption that won left it. Over a claimed version (FerretDB) the winner may
   * still be writing when the loser is refused: read again, briefly, until its use shows.
   */
  private async usedToken(id: string): Promise<EnrollmentTokenDoc | null> {
    for (let reads = 1; ; reads++) {
      const token = await this.deps.repos.enrollmentTokens.findById(id);
      if (!token || token.usedAt || reads >= usedTokenReads) return token;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /**
   * A used token presented again. The attempt that used it (same attempt id, within the replay
   * window and the token's lifetime) gets a credential with the same credential id, so whichever
   * answer reaches the Agent is valid; anyone else is refused as before.
   */
  private async retry(record: EnrollmentTokenDoc, attemptId: string): Promise<Redeemed> {
    const sameAttempt = isAttemptId(attemptId) && record.attemptHash !== undefined && sameHash(sha256(attemptId), record.attemptHash);
    const now = this.deps.clock.now();
    const open = Date.parse(record.usedAt!) + enrollmentReplayWindowMs > now.getTime() && record.expiresAt > now.toISOString();
    if (!sameAttempt || !open || !record.credentialId) throw new EnrollmentRefusedError('used_token', record.nodeId);
    const node = await this.deps.repos.nodes.findById(record.nodeId);
    if (!node) throw new EnrollmentRefusedError('unknown_token');
    if (node.adminState === 'REVOKED') throw new EnrollmentRefusedError('node_revoked', node._id);
    // While this token exists no later token can have enrolled the Node, so a Node whose credential
    // id differs is one whose first redemption has not (or never) finished: finish it the same way.
    if (node.credentialId !== record.credentialId) {
      return { nodeId: node._id, credential: await this.complete(node, record.credentialId, now.toISOString()), retry: true };
    }
    return { nodeId: node._id, credential: await this.sign(node._id, record.credentialId), retry: true };
  }

  /** Makes `credentialId` the Node's one valid credential and tells its actor. */
  private async complete(node: NodeDoc, credentialId: string, now: string): Promise<string> {
    const credential = await this.sign(node._id, credentialId);
    await this.deps.repos.nodes.update({ _id: node._id }, { credentialId, enrolledAt: now, updatedAt: now });
    this.fleet.enrolled(node._id);
    return credential;
  }

  private sign(nodeId: string, credentialId: string): Promise<string> {
    return this.requireCredentials().issue({ nodeId, credentialId }, this.deps.clock.now());
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
