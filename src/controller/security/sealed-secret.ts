import { conflict } from '../core/errors.js';
import { SecretBoxError, type SecretBox } from './secret-box.js';

/**
 * A secret the store keeps sealed, opened; one sealed under another key file than this
 * Controller's (`--secrets-key-file`) is a state only an operator can mend, said as such rather
 * than as an internal error.
 */
export function openSealed(secrets: SecretBox, sealed: string, purpose: string, mend: string): string {
  try {
    return secrets.open(sealed, purpose);
  } catch (e) {
    if (e instanceof SecretBoxError) throw conflict(`A stored secret does not open with this Controller's secrets key file (--secrets-key-file): it was sealed with another. ${mend}`);
    throw e;
  }
}
