import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import { asProblem, problemMessage } from '../api/problem';
import { useProblemUntilEdited } from './stale-problem';

interface FieldBase {
  label: string;
  /** The request field this control fills (`name`, `resources.cpuMillis`), to show the API's problem about it here. */
  field?: string;
  /** The last error of the form's mutation. */
  error?: unknown;
  /** An error found before sending (e.g. not a number). */
  localError?: string;
  hint?: ReactNode;
}

function fieldError(props: FieldBase): string | undefined {
  if (props.localError) return props.localError;
  if (props.error == null || !props.field) return undefined;
  const problem = asProblem(props.error);
  return problem.field === props.field ? problemMessage(problem) : undefined;
}

function Wrapper({ id, label, hint, error, children }: { id: string; label: string; hint?: ReactNode; error?: string; children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
      {hint ? <div id={`${id}-hint`} className="hint">{hint}</div> : null}
      {error ? <div id={`${id}-error`} role="alert" className="field-error">{error}</div> : null}
    </div>
  );
}

const describedBy = (id: string, hint: unknown, error: unknown) =>
  [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;

/** A labelled input that shows the API's problem about its field right under it, until the person changes the value. */
export function TextField({ label, field, error, localError, hint, onChange, ...input }: FieldBase & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  const [apiError, edited] = useProblemUntilEdited(error);
  const message = fieldError({ label, field, error: apiError, localError });
  return (
    <Wrapper id={id} label={label} hint={hint} error={message}>
      <input id={id} name={field} aria-invalid={message ? true : undefined} aria-describedby={describedBy(id, hint, message)} {...input} onChange={(e) => { edited(); onChange?.(e); }} />
    </Wrapper>
  );
}

/** A labelled select with the same problem display as TextField. */
export function SelectField({ label, field, error, localError, hint, children, onChange, ...select }: FieldBase & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  const [apiError, edited] = useProblemUntilEdited(error);
  const message = fieldError({ label, field, error: apiError, localError });
  return (
    <Wrapper id={id} label={label} hint={hint} error={message}>
      <select id={id} name={field} aria-invalid={message ? true : undefined} aria-describedby={describedBy(id, hint, message)} {...select} onChange={(e) => { edited(); onChange?.(e); }}>
        {children}
      </select>
    </Wrapper>
  );
}

/** A labelled multi-line input (a key, a list) with the same problem display as TextField. */
export function TextAreaField({ label, field, error, localError, hint, onChange, ...textarea }: FieldBase & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const id = useId();
  const [apiError, edited] = useProblemUntilEdited(error);
  const message = fieldError({ label, field, error: apiError, localError });
  return (
    <Wrapper id={id} label={label} hint={hint} error={message}>
      <textarea id={id} name={field} aria-invalid={message ? true : undefined} aria-describedby={describedBy(id, hint, message)} {...textarea} onChange={(e) => { edited(); onChange?.(e); }} />
    </Wrapper>
  );
}
