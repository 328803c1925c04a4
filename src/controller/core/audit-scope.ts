import type { AuditOutcome } from '../store/records.js';

/**
 * What a state-changing request did, filled in by the service as it learns it (the target's id
 * once created, the keys changed) and written once by the route layer, whatever the outcome.
 * Details name what was acted on and never carry secrets or file content.
 */
export class AuditScope {
  targetId = '';
  readonly details: Record<string, unknown> = {};
  outcome?: AuditOutcome;
  /** Set for requests made before a caller is known (setup, login) once the user is identified. */
  actorUserId?: string;
  /** Why a sign-in was refused (`cairn_auth_failures_total`'s reason), set by the service that knows. */
  authFailure?: string;

  constructor(public action: string, public targetKind: string) {}

  target(id: string, kind?: string): this {
    this.targetId = id;
    if (kind) this.targetKind = kind;
    return this;
  }

  detail(values: Record<string, unknown>): this {
    Object.assign(this.details, values);
    return this;
  }
}
