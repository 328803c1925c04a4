/** argon2id, 19 MiB, two passes: OWASP's baseline, ~20 ms a hash on these machines. */
const options = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

// The native addon is loaded by the first hash or check (≈ 25 ms of CPU), not at start.
let argon2: Promise<typeof import('@node-rs/argon2')> | undefined;
const loadArgon2 = () => (argon2 ??= import('@node-rs/argon2'));

export const hashPassword = async (password: string) => (await loadArgon2()).hash(password, options);

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  const { verify } = await loadArgon2();
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** Verifying against this when a user does not exist keeps the answer's timing alike. */
let decoyHash: Promise<string> | undefined;
export const decoyPasswordHash = () => (decoyHash ??= hashPassword('decoy-password-for-unknown-users'));
