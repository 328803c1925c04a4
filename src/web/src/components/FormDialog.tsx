import { useEffect, useId, useRef, type SubmitEvent, type ReactNode } from 'react';

interface FormDialogProps {
  open: boolean;
  title: string;
  /** The submit button's text, e.g. `Save`. */
  submitLabel: string;
  onSubmit: () => void;
  onClose: () => void;
  pending?: boolean;
  /** The form's fields and its FormProblem. */
  children: ReactNode;
}

/**
 * An edit form in a modal `<dialog>`, built like ConfirmDialog: focus moves into it and stays
 * there, Escape or Cancel closes it, the mutation's problems are shown inside by the children.
 */
export function FormDialog({ open, title, submitLabel, onSubmit, onClose, pending, children }: FormDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    onSubmit();
  };
  return (
    <dialog ref={ref} aria-labelledby={titleId} className="dialog form-dialog" onCancel={(e) => { e.preventDefault(); onClose(); }}>
      {open ? (
        <form onSubmit={submit} noValidate>
          <h2 id={titleId}>{title}</h2>
          {children}
          <div className="actions">
            <button type="submit" className="primary" disabled={pending}>{pending ? `${submitLabel}…` : submitLabel}</button>
            <button type="button" onClick={onClose}>Cancel</button>
          </div>
        </form>
      ) : null}
    </dialog>
  );
}
