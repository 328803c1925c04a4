import { useId } from 'react';
import type { SftpAddress } from '../../api/types';
import { CopyValue } from '../../components/CopyValue';

/** A Controller listening on every address names none a client can dial: the one this page was loaded from is the one that reaches it. */
const dialable = (host: string) => (host === '0.0.0.0' || host === '::' || host === '' ? window.location.hostname : host);

/** `[::1]` for an IPv6 address, where a colon would otherwise read as the port's. */
const bracketed = (host: string) => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);

/**
 * Where and as whom to connect to this server's files with an SFTP client, each with a Copy button;
 * the fingerprint is what the client shows at the first connection, to compare.
 */
export function SftpAccess({ sftp }: { sftp: SftpAddress }) {
  const headingId = useId();
  const host = bracketed(dialable(sftp.host));
  return (
    <section className="sftp-access" aria-labelledby={headingId}>
      <h3 id={headingId}>SFTP</h3>
      <dl>
        <dt>Address</dt><dd><CopyValue label="SFTP address" value={`${host}:${sftp.port}`} /></dd>
        <dt>Username</dt><dd><CopyValue label="SFTP username" value={sftp.username} /></dd>
        <dt>Host key fingerprint</dt><dd><CopyValue label="host key fingerprint" value={sftp.hostKeyFingerprint} /></dd>
        <dt>Command</dt><dd><CopyValue label="SFTP command" value={`sftp -P ${sftp.port} ${sftp.username}@${host}`} /></dd>
      </dl>
      <p className="hint">Sign in with an SSH key added on the Security page, or with your Cairn password when two-factor authentication is off.</p>
    </section>
  );
}
