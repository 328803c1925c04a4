import { hash, verify } from '@node-rs/argon2';

/** argon2id, 19 MiB, two passes: OWASP's baseline, ~20 ms a hash on these machines. */
const options = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string) => hash(password, options);

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** Verifying against this when a user does not exist keeps the answer's timing alike. */
let decoyHash: Promise<string> | undefined;
export const decoyPasswordHash = () => (decoyHash ??= hashPassword('decoy-password-for-unknown-users'));
