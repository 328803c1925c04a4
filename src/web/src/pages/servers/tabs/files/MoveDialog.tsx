import { useMutation } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type SubmitEvent } from 'react';
import { api } from '../../../../api/client';
import type { FileItem } from '../../../../api/types';
import { TextField } from '../../../../components/Field';
import { ProblemAlert } from '../../../../components/ProblemAlert';
import { joinPath, parentOf } from '../file-paths';

/** Rename keeps the entry in its folder and asks for a name; Move asks for the whole new path from the server root. */
export type MoveKind = 'rename' | 'move';

interface MoveDialogProps {
  serverId: string;
  kind: MoveKind;
  item: FileItem;
  onMoved: (from: string, to: string) => void;
  onCancel: () => void;
}

/** A modal form that renames or moves one file or folder; the API refuses a destination that exists, so nothing is replaced. */
export function MoveDialog({ serverId, kind, item, onMoved, onCancel }: MoveDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [value, setValue] = useState(kind === 'rename' ? item.name : item.path);
  const to = kind === 'rename' ? joinPath(parentOf(item.path), value.trim()) : value.trim().replace(/^\.\//, '');
  const move = useMutation({
    mutationFn: () => api.files.move(serverId, { from: item.path, to }),
    onSuccess: () => onMoved(item.path, to),
  });
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  // A name with a `/` would leave the folder: that is what Move is for.
  const slash = kind === 'rename' && value.includes('/') ? 'A name has no "/": use Move to put it in another folder.' : undefined;
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (value.trim() && !slash && to !== item.path) move.mutate();
  };
  const verb = kind === 'rename' ? 'Rename' : 'Move';
  return (
    <dialog ref={ref} aria-labelledby={titleId} className="dialog" onCancel={(e) => { e.preventDefault(); onCancel(); }}>
      <h2 id={titleId}>{verb} {item.name}</h2>
      <form onSubmit={submit}>
        <TextField label={kind === 'rename' ? 'New name' : 'Move to (path from the server root)'} field="to" error={move.error} localError={slash} value={value}
          onChange={(e) => setValue(e.target.value)} autoFocus />
        <ProblemAlert error={move.error} fields={['to']} />
        <div className="actions">
          <button type="button" onClick={onCancel}>Cancel</button>
          <button type="submit" disabled={move.isPending || !value.trim() || slash !== undefined || to === item.path}>{move.isPending ? `${verb}…` : verb}</button>
        </div>
      </form>
    </dialog>
  );
}
