import Type from 'typebox';
import { DateTime, PrintableName, Uuid } from './common.js';

export const SftpAddress = Type.Object({
  host: Type.String({ description: 'The address the Controller\'s SFTP server listens on (`--host`).' }),
  port: Type.Integer({ minimum: 1, maximum: 65535 }),
  username: Type.String({ description: '`<your username>.<server id prefix>`: the first 8 characters of the server\'s id, or more while another server shares them.' }),
  hostKeyFingerprint: Type.String({ description: 'The host key\'s SHA-256 fingerprint in OpenSSH\'s form (`SHA256:…`): compare it with what your client shows at the first connection.' }),
}, { description: 'Where and as whom to connect with SFTP to this server\'s files (docs/sftp.md). Absent when SFTP is off (`--sftp-port off`).' });

/** At most this many SSH keys per user. */
export const maxSshKeysPerUser = 20;

export const CreateSshKey = Type.Object({
  name: PrintableName(100),
  publicKey: Type.String({
    minLength: 1, maxLength: 16_384,
    description: 'One OpenSSH public key line: `ssh-ed25519`, `ecdsa-sha2-nistp256/384/521` or `ssh-rsa` of at least 3072 bits (a comment after the key is ignored).',
  }),
}, { additionalProperties: false });

export const SshKey = Type.Object({
  id: Uuid,
  name: Type.String(),
  fingerprint: Type.String({ description: 'SHA-256 in OpenSSH\'s form (`SHA256:…`), as `ssh-keygen -l` prints it.' }),
  createdAt: DateTime,
});

export const SshKeyList = Type.Object({ items: Type.Array(SshKey, { maxItems: maxSshKeysPerUser }) });
