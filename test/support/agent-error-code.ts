import { AgentError } from '../../src/agent/errors.js';

/** The AgentError code `work` fails with, or OK: the refusals the files API's tests compare. */
export async function codeOf(work: () => Promise<unknown>): Promise<string> {
  try {
    await work();
    return 'OK';
  } catch (e) {
    if (e instanceof AgentError) return e.code;
    throw e;
  }
}
