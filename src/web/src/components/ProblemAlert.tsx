import { asProblem } from '../api/problem';

interface ProblemAlertProps {
  /** The error of a query or mutation; nothing is shown while it is null or undefined. */
  error: unknown;
  /** Fields the form shows next to their control: a problem naming one of them is shown there instead. */
  fields?: readonly string[];
}

/** A problem from the API, with its detail, in an element with role `alert`. */
export function ProblemAlert({ error, fields = [] }: ProblemAlertProps) {
  if (error == null) return null;
  const problem = asProblem(error);
  if (problem.field && fields.includes(problem.field)) return null;
  return (
    <div role="alert" className="problem">
      <strong>{problem.title}</strong>
      {problem.detail && problem.detail !== problem.title ? <span> {problem.detail}</span> : null}
    </div>
  );
}
