import { useRef } from 'react';
import { asProblem } from '../api/problem';
import { useProblemUntilFormEdited } from './stale-problem';

interface ProblemAlertProps {
  /** The error of a query or mutation; nothing is shown while it is null or undefined. */
  error: unknown;
  /** Fields the form shows next to their control: a problem naming one of them is shown there instead. */
  fields?: readonly string[];
}

/**
 * A problem from the API, with its detail, in an element with role `alert`. Inside a form it goes
 * once the person edits the form (see stale-problem.ts).
 */
export function ProblemAlert({ error, fields = [] }: ProblemAlertProps) {
  const ref = useRef<HTMLDivElement>(null);
  const shown = useProblemUntilFormEdited(error, ref);
  if (shown == null) return null;
  const problem = asProblem(shown);
  if (problem.field && fields.includes(problem.field)) return null;
  return (
    <div ref={ref} role="alert" className="problem">
      <strong>{problem.title}</strong>
      {problem.detail && problem.detail !== problem.title ? <span> {problem.detail}</span> : null}
    </div>
  );
}
