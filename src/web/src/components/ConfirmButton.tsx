import { useMutation } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { ConfirmDialog } from './ConfirmDialog';

interface ConfirmButtonProps {
  /** The button's content; give it the thing's name (visually hidden if need be) so every row's button has its own name. */
  children: ReactNode;
  title: string;
  confirmLabel: string;
  /** What happens, said in the dialog. */
  description: ReactNode;
  action: () => Promise<unknown>;
  /** After the action succeeded and the dialog closed: invalidate what changed. */
  onDone?: () => void;
  className?: string;
}

/**
 * A destructive action behind a ConfirmDialog: the button opens it, the confirming button runs
 * the mutation, and a refusal (e.g. a 409 `conflict`) stays in the dialog with its detail.
 */
export function ConfirmButton({ children, title, confirmLabel, description, action, onDone, className = 'danger-outline' }: ConfirmButtonProps) {
  const [open, setOpen] = useState(false);
  const mutation = useMutation({
    mutationFn: action,
    onSuccess: () => {
      setOpen(false);
      onDone?.();
    },
  });
  return (
    <>
      <button type="button" className={className} onClick={() => { mutation.reset(); setOpen(true); }}>{children}</button>
      <ConfirmDialog open={open} title={title} confirmLabel={confirmLabel} onConfirm={() => mutation.mutate()} onCancel={() => setOpen(false)} pending={mutation.isPending} error={mutation.error}>
        {typeof description === 'string' ? <p>{description}</p> : description}
      </ConfirmDialog>
    </>
  );
}
