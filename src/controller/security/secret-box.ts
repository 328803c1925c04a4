import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';

const keyBytes = 32;
const ivBytes = 12;
const version = 'v1';

export class SecretBoxError extends Error {}

/**
 * Encrypts the secrets Cairn must read back (an OpenID client secret, TOTP seeds, storage
 * credentials) with a key kept outside the store: AES-256-GCM, a fresh nonce per value, and the
 * value's purpose (`oidc:client-secret`, `totp:<userId>`) as associated data, so a sealed value
 * moved to another field or user does not open. A stolen store alone reveals none of them.
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** The key in `path` (32 random bytes, base64), created with mode 0600 when absent. */
  static async fromFile(path: string): Promise<SecretBox> {
    const read = () => readFile(path, 'utf8').catch((e: unknown) => {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    });
    let text = await read();
    if (text === undefined) {
      const created = `${randomBytes(keyBytes).toString('base64')}\n`;
      // 'wx': of two Controllers creating it at once, one writes and the other reads the winner's.
      const wrote = await writeFile(path, created, { mode: 0o600, flag: 'wx' }).then(() => true, (e: unknown) => {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw e;
      });
      text = wrote ? created : await read();
      if (text === undefined) throw new SecretBoxError(`${path} vanished while it was created`);
    }
    const key = Buffer.from(text.trim(), 'base64');
    if (key.length !== keyBytes) throw new SecretBoxError(`${path} does not hold a ${keyBytes}-byte key in base64`);
    return new SecretBox(key);
  }

  static ofKey(key: Buffer): SecretBox {
    if (key.length !== keyBytes) throw new SecretBoxError(`a secret box key is ${keyBytes} bytes`);
    return new SecretBox(key);
  }

  seal(plain: string, purpose: string): string {
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(purpose, 'utf8'));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [version, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
  }

  /** The sealed value's text; SecretBoxError when it was sealed with another key or purpose, or changed. */
  open(sealed: string, purpose: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 4 || parts[0] !== version) throw new SecretBoxError('not a sealed value');
    const [, iv, tag, data] = parts;
    try {
      // The full 16-byte tag only: GCM would otherwise check a tag cut to 4 bytes, which a forger can guess.
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
      decipher.setAAD(Buffer.from(purpose, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('the sealed value does not open with this key and purpose (another key file, or changed)');
    }
  }
}
