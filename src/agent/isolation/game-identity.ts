/** The uid and gid a server's game runs as on this Node, and that owns the server's files. */
export interface GameIdentity {
  uid: number;
  gid: number;
}

/** A server's identity, or null when games on this Node run unisolated (as the Agent's own user). */
export type IdentityOf = (serverId: string) => GameIdentity | null;
