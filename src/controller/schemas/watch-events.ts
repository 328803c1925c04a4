/**
 * The `synced` event of GET /servers/watch: the client now holds every readable server's
 * current state. `snapshot` tells whether the `server` events before it were a fresh snapshot
 * (forget servers it did not name) or the changes missed since `Last-Event-ID`; `events` counts them.
 */
export interface ServerWatchSynced {
  snapshot: boolean;
  events: number;
}

/** The `end` event of GET /servers/watch: the last event; `reason` is `access_revoked` or `shutdown`. */
export interface ServerWatchEnd {
  reason: string;
}
