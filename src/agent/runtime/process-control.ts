function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

/**
 * Signals the process group led by `pid` (the game runs in its own session, so a wrapper script's
 * children get the signal too), or the process alone if it leads no group. False when it is gone.
 */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal);
      return true;
    } catch (error) {
      if (errorCode(error) !== 'ESRCH') throw error;
    }
  }
  return false;
}
