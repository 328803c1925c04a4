import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';

/** The SFTP server's identity: the private key as ssh2 reads it, and what clients are told to expect. */
export interface SshHostKey {
  /** An `OPENSSH PRIVATE KEY` (unencrypted ed25519), the one private-key form ssh2 reads for ed25519. */
  privateKey: string;
  /** OpenSSH's form: `SHA256:` and the unpadded base64 of the public key blob's digest. */
  fingerprint: string;
}

const sshString = (value: Buffer | string): Buffer => {
  const bytes = typeof value === 'string' ? Buffer.from(value) : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
};

/** The fingerprint `ssh-keygen -l` prints for a public key blob. */
export const sshFingerprint = (publicBlob: Buffer): string =>
  `SHA256:${createHash('sha256').update(publicBlob).digest('base64').replace(/=+$/, '')}`;

/** openssh-key-v1 (PROTOCOL.key), cipher none: node:crypto exports ed25519 keys only as PKCS#8, which ssh2 does not read. */
function newEd25519Key(): string {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  const seed = Buffer.from(jwk.d as string, 'base64url');
  const pub = Buffer.from(jwk.x as string, 'base64url');
  const publicBlob = Buffer.concat([sshString('ssh-ed25519'), sshString(pub)]);
  const check = randomBytes(4);
  let secret = Buffer.concat([check, check, sshString('ssh-ed25519'), sshString(pub), sshString(Buffer.concat([seed, pub])), sshString('cairn sftp host key')]);
  const padding = Buffer.from(Array.from({ length: (8 - (secret.length % 8)) % 8 }, (_, i) => i + 1));
  secret = Buffer.concat([secret, padding]);
  const count = Buffer.alloc(4);
  count.writeUInt32BE(1);
  const body = Buffer.concat([Buffer.from('openssh-key-v1\0'), sshString('none'), sshString('none'), sshString(''), count, sshString(publicBlob), sshString(secret)]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return ['-----BEGIN OPENSSH PRIVATE KEY-----', ...lines, '-----END OPENSSH PRIVATE KEY-----', ''].join('\n');
}

/** The public key blob inside an openssh-key-v1 private key (its first key). */
function publicBlobOf(privateKey: string): Buffer {
  const body = Buffer.from(privateKey.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
  let at = 'openssh-key-v1\0'.length;
  const next = () => {
    const length = body.readUInt32BE(at);
    const value = body.subarray(at + 4, at + 4 + length);
    at += 4 + length;
    return value;
  };
  next(); next(); next();
  at += 4;
  return next();
}

/**
 * The host key kept in `path` (mode 0600), made at the first start: clients pin it, so it must
 * outlive restarts. Created with `wx` as the secrets key is, so two Controllers starting on one data
 * dir end up with the same key.
 */
export async function loadSshHostKey(path: string): Promise<SshHostKey> {
  const read = () => readFile(path, 'utf8').catch((e: unknown) => {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  });
  let privateKey = await read();
  if (privateKey === undefined) {
    const created = newEd25519Key();
    const wrote = await writeFile(path, created, { mode: 0o600, flag: 'wx' }).then(() => true, (e: unknown) => {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    });
    privateKey = wrote ? created : await read();
    if (privateKey === undefined) throw new Error(`${path} vanished while it was created`);
  }
  return { privateKey, fingerprint: sshFingerprint(publicBlobOf(privateKey)) };
}
