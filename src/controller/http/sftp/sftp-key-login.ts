import ssh2, { type PublicKeyAuthContext } from 'ssh2';
import { sshFingerprint } from '../../security/ssh-host-key.js';
import { SftpAccess, type SftpTarget } from '../../services/files/sftp-access.js';
import type { SshKeyService } from '../../services/identity/ssh-keys.js';

/**
 * A public key sign-in: the key must be one the user added (`POST /me/ssh-keys`), and, once the
 * client signs, the signature must be the key's. Without a signature the client only asks whether
 * the key would do: it is told yes or no and signs next.
 */
export async function verifyKeyLogin(ctx: PublicKeyAuthContext, access: SftpAccess, keys: SshKeyService): Promise<SftpTarget | undefined> {
  const parsed = SftpAccess.parseUsername(ctx.username);
  const user = parsed && (await access.userOf(ctx.username));
  const key = user && (await keys.find(user._id, sshFingerprint(ctx.key.data)));
  if (!parsed || !user || !key) {
    if (ctx.signature) access.failed('bad_credentials');
    return undefined;
  }
  if (ctx.signature) {
    const publicKey = ssh2.utils.parseKey(ctx.key.data);
    if (publicKey instanceof Error || Array.isArray(publicKey) || !ctx.blob || publicKey.verify(ctx.blob, ctx.signature, ctx.hashAlgo) !== true) {
      access.failed('bad_credentials');
      return undefined;
    }
  }
  return access.target(user, parsed.prefix);
}
