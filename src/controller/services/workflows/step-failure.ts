/**
 * A step of a workflow that could not be done. Its message is what the operator reads in the
 * condition of the rollback (MIGRATION_FAILED, RESTORE_FAILED, UPDATE_FAILED), so it says which
 * step failed and why in words, never as a stack.
 */
export class StepFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StepFailure';
  }
}

/** The Controller is stopping: a run ends where it is, and the next start resumes it from the store. */
export class Stopped extends Error {
  constructor() {
    super('the Controller is stopping');
    this.name = 'Stopped';
  }
}
