/** Why a request to an Agent did not get an answer; services answer `node_unavailable` (503). */
export class NodeUnavailableError extends Error {
  constructor(readonly nodeId: string, readonly reason: 'not_connected' | 'deadline' | 'closed') {
    super(`Node ${nodeId} is unavailable: ${reason.replace('_', ' ')}`);
    this.name = 'NodeUnavailableError';
  }
}

export const isNodeUnavailable = (e: unknown): e is NodeUnavailableError => e instanceof NodeUnavailableError;

/** The Agent answered a request with `ok: false`; `code` is the Agent's machine-readable code (NOT_FOUND, READ_ONLY, ...). */
export class AgentRequestError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'AgentRequestError';
  }
}

export const isAgentRequestError = (e: unknown): e is AgentRequestError => e instanceof AgentRequestError;

/** Enrollment refused: the token is unknown, used or expired, or its Node is revoked. */
export class EnrollmentRefusedError extends Error {
  constructor(readonly reason: 'unknown_token' | 'used_token' | 'expired_token' | 'node_revoked', readonly nodeId?: string) {
    super(`enrollment refused: ${reason.replace('_', ' ')}`);
    this.name = 'EnrollmentRefusedError';
  }
}

/** A Connect with a credential that is invalid, superseded, or of a revoked or deleted Node. */
export class ConnectRefusedError extends Error {
  constructor(readonly reason: 'invalid_credential' | 'unknown_node' | 'superseded_credential' | 'node_revoked') {
    super(`connection refused: ${reason.replace('_', ' ')}`);
    this.name = 'ConnectRefusedError';
  }
}
