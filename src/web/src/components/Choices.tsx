import { useId, type ReactNode } from 'react';
import { asProblem, problemMessage } from '../api/problem';
import { namesField } from './FormProblem';

/** The API's problem about `field` (or an item of it), as the sentence shown next to the control. */
function fieldMessage(error: unknown, field: string | undefined): string | undefined {
  if (error == null || !field) return undefined;
  const problem = asProblem(error);
  return namesField(problem.field, field) ? problemMessage(problem) : undefined;
}

interface CheckboxFieldProps {
  label: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  hint?: ReactNode;
  field?: string;
  error?: unknown;
  disabled?: boolean;
}

/** One labelled checkbox, with a hint and the API's problem about its field under it. */
export function CheckboxField({ label, checked, onChange, hint, field, error, disabled }: CheckboxFieldProps) {
  const id = useId();
  const message = fieldMessage(error, field);
  const described = [hint ? `${id}-hint` : '', message ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className="check-field">
      <input id={id} type="checkbox" name={field} checked={checked} disabled={disabled} onChange={(e) => onChange(e.target.checked)} aria-describedby={described} aria-invalid={message ? true : undefined} />
      <label htmlFor={id}>{label}</label>
      {hint ? <div id={`${id}-hint`} className="hint">{hint}</div> : null}
      {message ? <div id={`${id}-error`} role="alert" className="field-error">{message}</div> : null}
    </div>
  );
}

export interface Choice<V extends string> {
  value: V;
  label: ReactNode;
  hint?: ReactNode;
}

interface CheckboxGroupProps<V extends string> {
  legend: string;
  choices: readonly Choice<V>[];
  selected: readonly V[];
  onChange: (selected: V[]) => void;
  /** The request field the group fills (`permissions`, `roleIds`), to show the API's problem about it here. */
  field?: string;
  error?: unknown;
  hint?: ReactNode;
}

/** A fieldset of checkboxes choosing a set of values; keeps the choices' order. */
export function CheckboxGroup<V extends string>({ legend, choices, selected, onChange, field, error, hint }: CheckboxGroupProps<V>) {
  const id = useId();
  const message = fieldMessage(error, field);
  const toggle = (value: V, on: boolean) => onChange(choices.map((c) => c.value).filter((v) => (v === value ? on : selected.includes(v))));
  return (
    <fieldset className="checkbox-group" aria-describedby={message ? `${id}-error` : undefined}>
      <legend>{legend}</legend>
      {hint ? <p className="hint">{hint}</p> : null}
      <div className="checkbox-grid">
        {choices.map((c) => (
          <CheckboxField key={c.value} label={c.label} hint={c.hint} checked={selected.includes(c.value)} onChange={(on) => toggle(c.value, on)} />
        ))}
      </div>
      {message ? <div id={`${id}-error`} role="alert" className="field-error">{message}</div> : null}
    </fieldset>
  );
}
