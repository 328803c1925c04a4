/** The three ways a command ends badly, each with its exit status (contract.md "The CLI"). */

/** The API refused: `Error from server (<code>): <detail>`, exit 1. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, readonly detail: string) {
    super(`Error from server (${code}): ${detail}`);
  }
}

/** The command line itself is wrong: exit 2. */
export class UsageError extends Error {}

/** Anything else that stops a well-formed command (ambiguous name, timeout, unreachable Controller): exit 1. */
export class CliError extends Error {}

export const notFound = (kind: string, ref: string) => new ApiError(404, 'not_found', `${kind} "${ref}" not found`);

/** A failure of this machine's files (Node's message names the call and the path): one `error:` line, not a stack. */
export const localFileError = (e: unknown): unknown => ((e as NodeJS.ErrnoException | undefined)?.syscall ? new CliError((e as Error).message) : e);
