import { createPublicKey } from 'node:crypto';
import ssh2 from 'ssh2';
import { sshFingerprint } from './ssh-host-key.js';

/** RSA keys shorter than this are refused: 2048-bit RSA is past its advised lifetime. */
export const minRsaBits = 3072;
const acceptedTypes = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'ssh-rsa'];

export interface SshPublicKey {
  type: string;
  /** The key blob, base64: what a client offers at sign-in. */
  blob: string;
  fingerprint: string;
}

/** One OpenSSH public key line, or why it is refused (a sentence for `body.publicKey`). */
export function parseSshPublicKey(line: string): SshPublicKey | { problem: string } {
  const parsed = ssh2.utils.parseKey(line.trim());
  if (parsed instanceof Error || Array.isArray(parsed) || parsed.isPrivateKey()) return { problem: 'is not an OpenSSH public key line (ssh-ed25519 AAAA… name)' };
  if (!acceptedTypes.includes(parsed.type)) return { problem: `a ${parsed.type} key is not accepted: use ssh-ed25519, ecdsa-sha2-nistp256/384/521 or ssh-rsa of at least ${minRsaBits} bits` };
  if (parsed.type === 'ssh-rsa') {
    const bits = createPublicKey(parsed.getPublicPEM()).asymmetricKeyDetails?.modulusLength ?? 0;
    if (bits < minRsaBits) return { problem: `an RSA key of ${bits} bits is too short: at least ${minRsaBits}` };
  }
  const blob = parsed.getPublicSSH();
  return { type: parsed.type, blob: blob.toString('base64'), fingerprint: sshFingerprint(blob) };
}
