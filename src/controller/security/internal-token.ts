import { errors, jwtVerify, SignJWT } from 'jose';

/** What a token lets its bearer ask of the Controller it names: one purpose, never reused for another. */
export type InternalPurpose = 'link-request' | 'console' | 'workflow-run' | 'backup-run';

/** A token lives long enough to cross the network once; a captured one is useless a minute later. */
const lifetime = '30s';

/**
 * Tokens one Controller shows another (HS256 with the key shared in the store): issued by the
 * sender, for the one Controller it calls (`aud`), for one purpose, valid 30 s. They are never
 * given to users: the API's sessions and tokens are of another kind and are refused here.
 */
export class InternalTokens {
  private loaded?: Promise<Uint8Array>;

  constructor(private readonly controllerId: string, private readonly load: () => Promise<Uint8Array>) {}

  /** Read from the store at first use (a lone Controller never needs it); a failed read is tried again next time. */
  private key(): Promise<Uint8Array> {
    this.loaded ??= this.load().catch((e: unknown) => {
      this.loaded = undefined;
      throw e;
    });
    return this.loaded;
  }

  async sign(audience: string, purpose: InternalPurpose): Promise<string> {
    return new SignJWT({ purpose })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(this.controllerId)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(lifetime)
      .sign(await this.key());
  }

  /** Whether `token` is a live token of another Controller for this one and `purpose`. */
  async verify(token: string, purpose: InternalPurpose): Promise<boolean> {
    const key = await this.key();
    try {
      const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], audience: this.controllerId });
      return payload.purpose === purpose && typeof payload.iss === 'string';
    } catch (e) {
      // A bad signature, another audience, an expired or malformed token: refused. Anything else is ours.
      if (e instanceof errors.JOSEError) return false;
      throw e;
    }
  }
}
