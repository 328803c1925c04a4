// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Lets one other Agent read files of an open snapshot over a direct TLS connection (a migration
 * Agent to Agent): the Agent listens on its bind address (on an ephemeral port unless configured)
 * while the snapshot is open, and accepts connections that prove the grant's key (TLS 1.2 with
 * that key as pre-shared key, so the key itself never travels between the Agents) until the grant
 * expires; a connection begun before its expiry runs to its end or the snapshot's close. Each
 * connection asks for files of the snapshot's manifest one after the other. Answered with
 * SnapshotServing.
 */
export interface SnapshotServeInput {
  /**
   * The snapshot.
   */
  'snapshotId'?: (string);
  /**
   * Names the grant (the TLS PSK identity).
   */
  'grantId'?: (string);
  /**
   * 32 random bytes the Controller made for this grant and gave only to this Agent and the target.
   */
  'key'?: (Buffer | Uint8Array | string);
  /**
   * How long new connections may be opened with the grant, at most 5 minutes.
   */
  'ttlMs'?: (number);
  /**
   * True when the reader hashes what arrives itself (the Controller storing each file under the
   * sha256 of its bytes): the files this grant reads end without their sha256, which spares the
   * Agent a pass of sha256 over the world, and the reader tells the hashes back with
   * SnapshotHashes. An older Agent sends them anyway.
   */
  'unhashed'?: (boolean);
}

/**
 * Lets one other Agent read files of an open snapshot over a direct TLS connection (a migration
 * Agent to Agent): the Agent listens on its bind address (on an ephemeral port unless configured)
 * while the snapshot is open, and accepts connections that prove the grant's key (TLS 1.2 with
 * that key as pre-shared key, so the key itself never travels between the Agents) until the grant
 * expires; a connection begun before its expiry runs to its end or the snapshot's close. Each
 * connection asks for files of the snapshot's manifest one after the other. Answered with
 * SnapshotServing.
 */
export interface SnapshotServe {
  /**
   * The snapshot.
   */
  'snapshotId': (string);
  /**
   * Names the grant (the TLS PSK identity).
   */
  'grantId': (string);
  /**
   * 32 random bytes the Controller made for this grant and gave only to this Agent and the target.
   */
  'key': (Buffer);
  /**
   * How long new connections may be opened with the grant, at most 5 minutes.
   */
  'ttlMs': (number);
  /**
   * True when the reader hashes what arrives itself (the Controller storing each file under the
   * sha256 of its bytes): the files this grant reads end without their sha256, which spares the
   * Agent a pass of sha256 over the world, and the reader tells the hashes back with
   * SnapshotHashes. An older Agent sends them anyway.
   */
  'unhashed': (boolean);
}
