import { asProblem } from '../api/problem';
import { ProblemAlert } from './ProblemAlert';

/** Names `field` itself or a part of it (`permissions` covers `permissions[3]`, `tasks` covers `tasks[0].command`). */
export const namesField = (problemField: string | undefined, field: string) =>
  problemField !== undefined && (problemField === field || problemField.startsWith(`${field}.`) || problemField.startsWith(`${field}[`));

/**
 * ProblemAlert for a whole form, leaving out a problem that one of `fields` shows next to its
 * control; unlike ProblemAlert's own `fields`, an item of an array field counts as the field.
 */
export function FormProblem({ error, fields }: { error: unknown; fields: readonly string[] }) {
  if (error == null) return null;
  const field = asProblem(error).field;
  if (fields.some((f) => namesField(field, f))) return null;
  return <ProblemAlert error={error} />;
}
