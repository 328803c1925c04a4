import { useRef } from 'react';
import type { BackupDestination } from '../../../api/types';
import { TaskEditor } from './TaskEditor';
import { maxTasks, moveTask, newTask, type TaskDraft } from './task-drafts';

interface TaskListProps {
  drafts: TaskDraft[];
  onChange: (drafts: TaskDraft[]) => void;
  destinations?: BackupDestination[];
  defaultDestinationId: string;
  error: unknown;
  problems: Record<string, string>;
}

/** The schedule's tasks in the order a run takes them: add, remove and move them; 1 to 20. */
export function TaskList({ drafts, onChange, destinations, defaultDestinationId, error, problems }: TaskListProps) {
  // Keys only grow, so a removed task's controls are never reused for another.
  const nextKey = useRef(Math.max(0, ...drafts.map((d) => d.key)) + 1);
  const add = () => onChange([...drafts, newTask(nextKey.current++, 'command')]);
  return (
    <fieldset className="schedule-tasks">
      <legend>Tasks</legend>
      <p className="hint">A run takes them in this order, each once the one before has ended.</p>
      <ol className="plain-list">
        {drafts.map((draft, i) => (
          <li key={draft.key}>
            <TaskEditor index={i} count={drafts.length} draft={draft} destinations={destinations} defaultDestinationId={defaultDestinationId} error={error} problems={problems}
              onChange={(changed) => onChange(drafts.map((d) => (d.key === draft.key ? changed : d)))}
              onMove={(by) => onChange(moveTask(drafts, i, by))}
              onRemove={() => onChange(drafts.filter((d) => d.key !== draft.key))} />
          </li>
        ))}
      </ol>
      <button type="button" onClick={add} disabled={drafts.length >= maxTasks}>Add task</button>
      {drafts.length >= maxTasks ? <span className="hint"> A schedule has at most {maxTasks} tasks.</span> : null}
    </fieldset>
  );
}
