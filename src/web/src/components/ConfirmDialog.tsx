import { useEffect, useId, useRef, type ReactNode } from 'react';
import { ProblemAlert } from './ProblemAlert';

interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children?: ReactNode;
  /** The confirming button's text, e.g. `Delete`. */
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  pending?: boolean;
  error?: unknown;
  /** `danger` (the default) for what destroys; `primary` for a consent that goes ahead, like accepting a licence. */
  tone?: 'danger' | 'primary';
}

/**
 * Asks before something destructive: a modal `<dialog>` (focus moves into it and stays there,
 * Escape cancels), with the mutation's problem shown inside it if it fails.
 */
export function ConfirmDialog({ open, title, children, confirmLabel, onConfirm, onCancel, pending, error, tone = 'danger' }: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} className="dialog" onCancel={(e) => { e.preventDefault(); onCancel(); }}>
      <h2 id={titleId}>{title}</h2>
      {children}
      <ProblemAlert error={error} />
      <div className="actions">
        <button type="button" onClick={onCancel} autoFocus>Cancel</button>
        <button type="button" className={tone} onClick={onConfirm} disabled={pending}>{pending ? `${confirmLabel}…` : confirmLabel}</button>
      </div>
    </dialog>
  );
}
