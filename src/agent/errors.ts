/**
 * A request the Agent refuses or fails, with the machine-readable code the Controller maps
 * (NOT_FOUND, INVALID_PATH, READ_ONLY, SERVER_NOT_RUNNING, NOT_A_DIRECTORY, ALREADY_EXISTS,
 * TOO_LARGE, UNSUPPORTED, INTERNAL).
 */
export class AgentError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'AgentError';
  }
}

export const isAgentError = (e: unknown): e is AgentError => e instanceof AgentError;
