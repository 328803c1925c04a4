/** Stored shapes. Timestamps are ISO 8601 strings in both adapters so that they compare alike. */

export interface UserDoc {
  _id: string;
  username: string;
  /** Lower-cased username: the unique index makes usernames case-insensitively unique. */
  usernameKey: string;
  email: string;
  emailKey: string;
  displayName: string;
  passwordHash: string;
  globalAdmin: boolean;
  globalPermissions: string[];
  passwordChangeRequired: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface SessionDoc {
  /** SHA-256 of the session id; the id itself exists only in the client's cookie. */
  _id: string;
  userId: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
}

export interface ApiTokenDoc {
  _id: string;
  userId: string;
  name: string;
  /** SHA-256 of the whole token. */
  hash: string;
  createdAt: string;
  expiresAt?: string;
  lastUsedAt?: string;
}

export interface TeamDoc {
  _id: string;
  name: string;
  nameKey: string;
  createdAt: string;
  updatedAt: string;
}

export interface RoleDoc {
  _id: string;
  name: string;
  nameKey: string;
  description: string;
  builtin: boolean;
  permissions: string[];
  createdAt: string;
  updatedAt: string;
}

export interface MembershipDoc {
  /** `<teamId>:<userId>`, so one user has at most one membership per team. */
  _id: string;
  teamId: string;
  userId: string;
  roleIds: string[];
  createdAt: string;
  updatedAt: string;
}

export interface PasswordResetDoc {
  _id: string;
  userId: string;
  hash: string;
  createdAt: string;
  expiresAt: string;
  usedAt?: string;
}

export interface NetworkDoc {
  _id: 'network';
  name: string;
  description: string;
  address: string;
  port: number;
  lobbyServerId?: string;
  createdAt: string;
  updatedAt: string;
}

/** Small singletons: the setup code's hash, and later capability settings. */
export interface SettingDoc {
  _id: string;
  value: Record<string, unknown>;
  updatedAt: string;
}

export type ActorKind = 'USER' | 'API_TOKEN' | 'AGENT' | 'SYSTEM';
export type AuditOutcome = 'SUCCESS' | 'DENIED' | 'FAILED';

export interface AuditEventRecord {
  id: number;
  occurredAt: string;
  actorKind: ActorKind;
  actorUserId?: string;
  action: string;
  targetKind: string;
  targetId: string;
  outcome: AuditOutcome;
  details: Record<string, unknown>;
}

export type NewAuditEvent = Omit<AuditEventRecord, 'id' | 'occurredAt'> & { occurredAt?: string };

export interface AuditQuery {
  actorUserId?: string;
  targetKind?: string;
  targetId?: string;
  action?: string;
  outcome?: string;
  /** Inclusive. */
  since?: string;
  /** Exclusive. */
  until?: string;
  /** Only events with a smaller id (the cursor). */
  beforeId?: number;
  limit: number;
}

/** Append-only, newest-first searchable log. */
export interface AuditLog {
  append(event: NewAuditEvent): Promise<AuditEventRecord>;
  search(query: AuditQuery): Promise<AuditEventRecord[]>;
  close(): Promise<void>;
}
