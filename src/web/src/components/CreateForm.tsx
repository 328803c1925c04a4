import { useMutation } from '@tanstack/react-query';
import { useState, type ReactNode, type SubmitEvent } from 'react';
import { FormProblem } from './FormProblem';

interface CreateFormProps<V, B, R> {
  /** What the form creates, as its heading and button say it: `role` → "New role", "Create role". */
  noun: string;
  /** The controls' value when the form opens, and again after each creation. */
  empty: V;
  /** The request body for the controls' value. */
  body: (value: V) => B;
  /** The API call. */
  create: (body: B) => Promise<R>;
  onCreated: (created: R) => void;
  /** The request fields the controls show problems for; FormProblem shows any other. */
  fields: readonly string[];
  /** The status line once a record is created. */
  done: (created: R) => ReactNode;
  /** The controls, given their value, its setter and the last error. */
  children: (value: V, onChange: (value: V) => void, error: unknown) => ReactNode;
}

/**
 * The card form that creates a record on an admin page: heading, the controls, the form's other
 * problems, what was created and the submit button. The controls are emptied after a creation.
 */
export function CreateForm<V, B, R>({ noun, empty, body, create, onCreated, fields, done, children }: CreateFormProps<V, B, R>) {
  const [value, setValue] = useState(empty);
  const mutation = useMutation({
    mutationFn: create,
    onSuccess: (created) => {
      setValue(empty);
      onCreated(created);
    },
  });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    mutation.mutate(body(value));
  };
  const headingId = `new-${noun}-heading`;
  return (
    <form className="card admin-form" onSubmit={submit} noValidate aria-labelledby={headingId}>
      <h2 id={headingId}>{`New ${noun}`}</h2>
      {children(value, setValue, mutation.error)}
      <FormProblem error={mutation.error} fields={fields} />
      {mutation.isSuccess ? <p role="status" className="success">{done(mutation.data)}</p> : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={mutation.isPending}>{mutation.isPending ? `Creating ${noun}…` : `Create ${noun}`}</button>
      </div>
    </form>
  );
}
