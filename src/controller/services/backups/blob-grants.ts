import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { BlobStore } from '../../../shared/backup/blob-store.js';
import { GrantRefusedError, type BlobReceiver } from '../../link/blob-rpc.js';

/** A grant's key: 32 random bytes, as the peer copies' grants. */
const keyBytes = 32;

interface Grant {
  nodeId: string;
  sha256: string;
  key: Buffer;
  expiresAt: number;
  store: BlobStore;
  presented: boolean;
  /** Settled with what the store added once the bytes presented with the grant are stored, or why not. */
  settle: { resolve(bytes: number): void; reject(e: unknown): void };
}

/** One blob an Agent may stream into the store (SnapshotPush, then PutBlob). */
export interface IssuedGrant {
  grantId: string;
  key: Buffer;
  /** Whether the grant was presented here (its bytes came to this Controller, whatever became of them). */
  readonly presented: boolean;
  /** The bytes the store added, once the grant's bytes are stored; its failure once they could not be. */
  stored: Promise<number>;
  /** Ends the grant if it was not presented yet; always called by the issuer. */
  revoke(): void;
}

/**
 * Grants of the Controller's store to Agents, one per blob of a backup: a fresh random key given
 * over the Node's link, good for that Node only, for one upload, until its deadline. The key is
 * compared in constant time and never logged; a refusal says nothing about which check failed.
 */
export class BlobGrants implements BlobReceiver {
  private readonly grants = new Map<string, Grant>();

  constructor(private readonly now: () => number = Date.now) {}

  issue(nodeId: string, sha256: string, store: BlobStore, ttlMs: number): IssuedGrant {
    const grantId = randomUUID();
    const key = randomBytes(keyBytes);
    let settle!: Grant['settle'];
    const stored = new Promise<number>((resolve, reject) => {
      settle = { resolve, reject };
    });
    // Nobody may be waiting when it fails (the Agent's answer failed first): the issuer reads it when it needs it.
    stored.catch(() => undefined);
    const grant: Grant = { nodeId, sha256, key, expiresAt: this.now() + ttlMs, store, presented: false, settle };
    this.grants.set(grantId, grant);
    return {
      grantId, key: Buffer.from(key), stored,
      get presented() {
        return grant.presented;
      },
      revoke: () => {
        this.grants.delete(grantId);
      },
    };
  }

  async receive(nodeId: string, grantId: string, key: Buffer, pieces: AsyncIterable<Buffer>): Promise<number> {
    const grant = this.grants.get(grantId);
    // Every check is made whatever the others found, and the key compared in constant time.
    const keyMatches = grant !== undefined && key.length === keyBytes && timingSafeEqual(key, grant.key);
    if (!grant || !keyMatches || grant.nodeId !== nodeId || this.now() > grant.expiresAt) throw new GrantRefusedError();
    this.grants.delete(grantId);
    grant.presented = true;
    try {
      const bytes = await grant.store.putBlob(grant.sha256, pieces);
      grant.settle.resolve(bytes);
      return bytes;
    } catch (e) {
      grant.settle.reject(e);
      throw e;
    }
  }
}
