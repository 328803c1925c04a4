/**
 * A request the Agent refuses or fails, with the machine-readable code the Controller maps
 * (NOT_FOUND, INVALID_PATH, READ_ONLY, SERVER_NOT_RUNNING, NOT_A_DIRECTORY, ALREADY_EXISTS,
 * TOO_LARGE, DISK_QUOTA_EXCEEDED, UNSUPPORTED, INTERNAL).
 */
export class AgentError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'AgentError';
  }
}

export const isAgentError = (e: unknown): e is AgentError => e instanceof AgentError;

/**
 * What the file system said, as a refusal the operator can act on. Operations map the errors
 * they expect with their own words; this catches the rest (a name over 255 bytes, a full disk,
 * a file the Agent's user may not touch) so none of them reaches the Controller as INTERNAL.
 */
const errnoRefusals: Record<string, [code: string, message: string]> = {
  ENAMETOOLONG: ['INVALID_PATH', 'path: a name in the path is longer than the file system allows (255 bytes).'],
  ELOOP: ['INVALID_PATH', 'path: too many symbolic links.'],
  EINVAL: ['INVALID_PATH', 'path: the file system refuses this name.'],
  EILSEQ: ['INVALID_PATH', 'path: the file system refuses this name.'],
  ENOENT: ['NOT_FOUND', 'path: does not exist.'],
  ENOTDIR: ['NOT_A_DIRECTORY', 'path: a part of the path is not a directory.'],
  EISDIR: ['NOT_A_FILE', 'path: is a directory.'],
  EEXIST: ['ALREADY_EXISTS', 'path: already exists.'],
  ENOTEMPTY: ['ALREADY_EXISTS', 'path: the directory is not empty.'],
  EACCES: ['PERMISSION_DENIED', 'The Agent\'s user may not access this file on the Node.'],
  EPERM: ['PERMISSION_DENIED', 'The Agent\'s user may not access this file on the Node.'],
  EROFS: ['READ_ONLY', 'The Node\'s file system is read-only.'],
  ENOSPC: ['NO_SPACE', 'The Node\'s disk is full.'],
  EDQUOT: ['NO_SPACE', 'The Node\'s disk quota is used up.'],
  EFBIG: ['TOO_LARGE', 'The file is larger than the Node allows.'],
  EBUSY: ['BUSY', 'The file is in use on the Node; try again.'],
  EMFILE: ['BUSY', 'The Agent has too many open files; try again.'],
  ENFILE: ['BUSY', 'The Node has too many open files; try again.'],
};

export function agentErrorFromErrno(error: unknown): AgentError | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const refusal = code === undefined ? undefined : errnoRefusals[code];
  return refusal ? new AgentError(refusal[0], refusal[1]) : undefined;
}
