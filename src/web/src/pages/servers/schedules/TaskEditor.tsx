import type { BackupDestination, ScheduleTaskAction } from '../../../api/types';
import { CheckboxField } from '../../../components/Choices';
import { SelectField, TextField } from '../../../components/Field';
import { DestinationSelect } from '../../backups/DestinationSelect';
import { actionLabels } from './schedule-words';
import { defaultWarnCommand, maxOffsetSeconds, taskField, type TaskDraft } from './task-drafts';

interface TaskEditorProps {
  index: number;
  count: number;
  draft: TaskDraft;
  onChange: (draft: TaskDraft) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
  /** Global administrators choose a backup's destination; others get the Controller's default. */
  destinations?: BackupDestination[];
  /** The destination a backup task has until one is chosen. */
  defaultDestinationId: string;
  error: unknown;
  /** What the form found before sending, by request field. */
  problems: Record<string, string>;
}

const actions = Object.keys(actionLabels) as ScheduleTaskAction[];

/** One task of the New schedule form: its action, the fields of that action, when it starts and whether a failure ends the run. */
export function TaskEditor({ index, count, draft, onChange, onMove, onRemove, destinations, defaultDestinationId, error, problems }: TaskEditorProps) {
  const set = (change: Partial<TaskDraft>) => onChange({ ...draft, ...change });
  const field = (property: Parameters<typeof taskField>[1]) => taskField(index, property);
  // What each text control of the task shares: its request field, the problems about it, its value.
  const text = (property: 'command' | 'warnSeconds' | 'warnCommand' | 'retain' | 'offsetSeconds') => ({
    field: field(property), error, localError: problems[field(property)], value: draft[property],
    onChange: (e: { target: { value: string } }) => set({ [property]: e.target.value }), autoComplete: 'off',
  });
  const name = `Task ${index + 1}`;
  return (
    <fieldset className="schedule-task">
      <legend>{name}</legend>
      <SelectField label="Action" field={field('action')} error={error} value={draft.action} onChange={(e) => set({ action: e.target.value as ScheduleTaskAction })}>
        {actions.map((a) => <option key={a} value={a}>{actionLabels[a]}</option>)}
      </SelectField>
      {draft.action === 'command' ? <TextField label="Command" {...text('command')} spellCheck={false} placeholder="say Good morning" hint="A console line, without the leading slash." /> : null}
      {draft.action === 'restart' ? (
        <>
          <TextField label="Warnings (seconds before the stop)" {...text('warnSeconds')} inputMode="numeric" placeholder="60,30,10"
            hint="Each warning goes to the console that many seconds before the server stops; the task waits for the longest. Empty: no warning." />
          <TextField label="Warning command" {...text('warnCommand')} spellCheck={false} placeholder={defaultWarnCommand}
            hint={<>{'{seconds}'} becomes the seconds left. Empty: <code>{defaultWarnCommand}</code>.</>} />
        </>
      ) : null}
      {draft.action === 'backup' ? (
        <>
          {destinations ? (
            <DestinationSelect destinations={destinations} value={draft.destinationId || defaultDestinationId} onChange={(id) => set({ destinationId: id })} error={error} field={field('destinationId')} />
          ) : null}
          <TextField label="Retain" {...text('retain')} inputMode="numeric" hint="How many of this schedule's backups are kept (1 to 100); the oldest beyond go after each run. Empty: all." />
        </>
      ) : null}
      <TextField label="Offset (seconds)" {...text('offsetSeconds')} inputMode="numeric" placeholder="0"
        hint={`Seconds after the run's start before this task begins (0 to ${maxOffsetSeconds}), and never before the task before it has ended.`} />
      <CheckboxField label="Continue on failure" checked={draft.continueOnFailure} onChange={(on) => set({ continueOnFailure: on })} field={field('continueOnFailure')} error={error}
        hint="Otherwise a failure of this task ends the run: the tasks after it are not run." />
      <div className="row-actions">
        <button type="button" onClick={() => onMove(-1)} disabled={index === 0}>Move up<span className="visually-hidden"> {name}</span></button>
        <button type="button" onClick={() => onMove(1)} disabled={index === count - 1}>Move down<span className="visually-hidden"> {name}</span></button>
        <button type="button" className="danger-outline" onClick={onRemove} disabled={count === 1}>Remove<span className="visually-hidden"> {name}</span></button>
      </div>
    </fieldset>
  );
}
