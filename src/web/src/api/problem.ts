import { problemField, withoutField } from './problem-field';
import type { ProblemBody } from './types';

/** An RFC 9457 problem the API answered (or one made here when the API could not be reached). */
export class ApiProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail?: string;
  readonly retryAfterSeconds?: number;

  constructor(body: ProblemBody, retryAfterSeconds?: number) {
    super(body.detail ?? body.title);
    this.name = 'ApiProblem';
    this.status = body.status;
    this.code = body.code;
    this.title = body.title;
    this.detail = body.detail;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** What a person reads: the API's detail, or its title when there is none. */
  get text(): string {
    return this.detail ?? this.title;
  }

  /** The request field the detail names (`body.resources.cpuMillis: ...` → `resources.cpuMillis`), if any. */
  get field(): string | undefined {
    return problemField(this.detail);
  }
}

/** The sentence after the field, for showing next to the field itself: `Enter at least 1 character.` */
export function problemMessage(problem: ApiProblem): string {
  if (!problem.detail || !problem.field) return problem.text;
  const sentence = withoutField(problem.detail);
  // The API writes the advice after `body.name: `, in lower case; under the field it starts a sentence.
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}

export const isProblem = (e: unknown): e is ApiProblem => e instanceof ApiProblem;

/** Any error as a problem, so every failure is shown the same way. */
export function asProblem(e: unknown): ApiProblem {
  if (isProblem(e)) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new ApiProblem({ type: 'about:blank', title: 'The Controller could not be reached.', status: 0, code: 'network', detail: message });
}
