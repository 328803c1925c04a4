import { createHash, createHmac } from 'node:crypto';

/** What a SigV4 signer hands a hash (its SourceData). */
type SourceData = string | ArrayBuffer | ArrayBufferView;

const bytes = (data: SourceData): string | Uint8Array => (typeof data === 'string' ? data : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data));

/** SHA-256 (or its HMAC, given a secret) from Node's crypto, in the shape `@smithy/signature-v4` takes. */
export class NodeSha256 {
  private readonly hash: ReturnType<typeof createHash> | ReturnType<typeof createHmac>;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
}
