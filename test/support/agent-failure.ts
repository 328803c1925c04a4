import { expect } from 'chai';
import { AgentError } from '../../src/agent/errors.js';

/** The AgentError `work` fails with; the test fails if it succeeds or fails with anything else. */
export async function failureOf(work: Promise<unknown>): Promise<AgentError> {
  try {
    await work;
  } catch (e) {
    expect(e).to.be.instanceOf(AgentError);
    return e as AgentError;
  }
  throw new Error('it did not fail');
}
