/** The `end` event's reason when a stream's caller lost its access (signed out, token deleted, removed, ...). */
export const accessRevokedReason = 'access_revoked';

/** What ended or narrowed a user's access; every kind leads to the same re-check, the kind tells logs and tests why. */
export type AccessChangeKind =
  | 'session_ended'
  | 'token_ended'
  | 'user_deleted'
  | 'user_rights_changed'
  | 'membership_changed'
  | 'role_changed'
  | 'team_deleted';

export interface AccessChange {
  userId: string;
  kind: AccessChangeKind;
}

type Listener = (change: AccessChange) => void;

/**
 * The one signal that a user's access may have ended or narrowed. The services that end a
 * credential or take a permission away publish it after their write; every long-lived stream of
 * that user listens and re-checks. Listeners only schedule work, so publishing never waits.
 */
export class AccessEvents {
  private readonly byUser = new Map<string, Set<Listener>>();
  private readonly everyone = new Set<Listener>();

  publish(change: AccessChange): void {
    for (const listener of [...this.everyone, ...(this.byUser.get(change.userId) ?? [])]) listener(change);
  }

  publishAll(userIds: Iterable<string>, kind: AccessChangeKind): void {
    for (const userId of new Set(userIds)) this.publish({ userId, kind });
  }

  /** Changes of one user's access; returns the unsubscribe. */
  subscribe(userId: string, listener: Listener): () => void {
    let listeners = this.byUser.get(userId);
    if (!listeners) this.byUser.set(userId, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.byUser.get(userId) === listeners) this.byUser.delete(userId);
    };
  }

  /** Every user's changes (the watch journal marks where a resume must start over). */
  subscribeAll(listener: Listener): () => void {
    this.everyone.add(listener);
    return () => this.everyone.delete(listener);
  }
}
