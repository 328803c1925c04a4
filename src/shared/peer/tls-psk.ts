/**
 * How two Agents secure their connection: TLS 1.2 with the grant's key as pre-shared key, so
 * neither sends it; with ECDHE beside it, so someone who learns the key later (or only listens)
 * still cannot read the bytes. TLS 1.3 has no pre-shared keys of this kind in Node.
 */
export const pskTls = {
  ciphers: 'ECDHE-PSK-CHACHA20-POLY1305',
  minVersion: 'TLSv1.2',
  maxVersion: 'TLSv1.2',
} as const;

/** A grant's key is 32 random bytes; anything else is refused before it is used. */
export const grantKeyBytes = 32;

/** A connection that waits this long for its peer is given up (a vanished peer must not hold a request forever). */
export const peerIdleMs = 30_000;


/**
 * Connections one grant may open: a target Agent's files in flight with room for a retry each,
 * or the Controller's blobs in flight when it reads a backup straight from the Agent.
 */
export const connectionsPerGrant = 16;
