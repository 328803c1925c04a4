/** A public key a user added for SFTP sign-in (`POST /me/ssh-keys`). */
export interface SshKeyDoc {
  _id: string;
  userId: string;
  name: string;
  type: string;
  /** The key blob, base64, as clients offer it. */
  blob: string;
  /** SHA-256 of the blob in OpenSSH's form: how a sign-in finds the key. */
  fingerprint: string;
  createdAt: string;
}
