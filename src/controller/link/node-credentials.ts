import { exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type CryptoKey, type JWK } from 'jose';

const issuer = 'cairn-controller';
const audience = 'cairn-agent-link';
const algorithm = 'EdDSA';

/** A credential that is malformed, not signed by this Controller, or not for the Agent link. */
export class InvalidCredentialError extends Error {
  constructor(reason: string) {
    super(`invalid Node credential: ${reason}`);
    this.name = 'InvalidCredentialError';
  }
}

export interface CredentialClaims {
  nodeId: string;
  /** Which enrollment issued it; re-enrolling replaces it. */
  credentialId: string;
}

/**
 * Signs and checks Node credentials: EdDSA JWTs whose subject is the Node and whose id names the
 * enrollment. They carry no expiry: a credential lives until the Node is revoked, re-enrolled or
 * deleted, which the caller checks against the stored Node.
 */
export class NodeCredentials {
  private constructor(private readonly privateKey: CryptoKey, private readonly publicKey: CryptoKey) {}

  /** A fresh Ed25519 key pair as a private JWK (which holds the public key too). */
  static async generateKey(): Promise<JWK> {
    const pair = await generateKeyPair(algorithm, { crv: 'Ed25519', extractable: true });
    return { ...(await exportJWK(pair.privateKey)), alg: algorithm };
  }

  static async fromKey(jwk: JWK): Promise<NodeCredentials> {
    const { d: _private, ...publicJwk } = jwk;
    const privateKey = (await importJWK(jwk, algorithm)) as CryptoKey;
    const publicKey = (await importJWK(publicJwk, algorithm)) as CryptoKey;
    return new NodeCredentials(privateKey, publicKey);
  }

  async issue(claims: CredentialClaims, at: Date): Promise<string> {
    return new SignJWT({})
      .setProtectedHeader({ alg: algorithm })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject(claims.nodeId)
      .setJti(claims.credentialId)
      .setIssuedAt(Math.floor(at.getTime() / 1000))
      .sign(this.privateKey);
  }

  async verify(credential: string): Promise<CredentialClaims> {
    try {
      const { payload } = await jwtVerify(credential, this.publicKey, { issuer, audience, algorithms: [algorithm] });
      if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string') throw new InvalidCredentialError('claims missing');
      return { nodeId: payload.sub, credentialId: payload.jti };
    } catch (e) {
      if (e instanceof InvalidCredentialError) throw e;
      throw new InvalidCredentialError((e as Error).name);
    }
  }
}
