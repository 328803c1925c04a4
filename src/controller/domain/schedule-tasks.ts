import type { Permission } from '../core/permission-names.js';
import type { ScheduleTask, ScheduleTaskAction } from '../schemas/schedules.js';

type TaskField = Exclude<keyof ScheduleTask, 'action' | 'offsetSeconds' | 'continueOnFailure'>;

/** The fields only some actions take; every action takes `offsetSeconds` and `continueOnFailure`. */
const fieldsOf: Record<ScheduleTaskAction, { required: TaskField[]; optional: TaskField[] }> = {
  command: { required: ['command'], optional: [] },
  start: { required: [], optional: [] },
  stop: { required: [], optional: [] },
  restart: { required: [], optional: ['warnSeconds', 'warnCommand'] },
  backup: { required: ['destinationId'], optional: ['retain'] },
};

const takers = (field: TaskField) => (Object.keys(fieldsOf) as ScheduleTaskAction[]).filter((a) => [...fieldsOf[a].required, ...fieldsOf[a].optional].includes(field));

/**
 * What the schema cannot say of a task (one shape serves every action): the field an action needs
 * and lacks, or one it does not take, named as `<at>.<field>`; undefined when the task is whole.
 */
export function taskProblem(task: ScheduleTask, at: string): string | undefined {
  const { required, optional } = fieldsOf[task.action];
  for (const field of required) if (task[field] === undefined) return `${at}.${field}: a ${task.action} task needs it.`;
  const taken = new Set<string>([...required, ...optional]);
  for (const field of ['command', 'warnSeconds', 'warnCommand', 'destinationId', 'retain'] as const) {
    if (task[field] !== undefined && !taken.has(field)) return `${at}.${field}: only a ${takers(field).join(' or ')} task takes it, not ${task.action}.`;
  }
  return undefined;
}

/** The team permissions a task acts with: its editor must hold them to save it, and still hold them when it runs. */
export function taskPermissions(action: ScheduleTaskAction): Permission[] {
  switch (action) {
    case 'command': return ['servers.command'];
    case 'start': return ['servers.start'];
    case 'stop': return ['servers.stop'];
    case 'restart': return ['servers.stop', 'servers.start'];
    case 'backup': return ['backups.create'];
  }
}

/** Every permission the tasks act with, each once. */
export const tasksPermissions = (tasks: readonly ScheduleTask[]): Permission[] => [...new Set(tasks.flatMap((t) => taskPermissions(t.action)))];

/**
 * A restart's warnings as delays from the task's start (longest warning first, at 0) and the delay
 * of the restart itself: warnSeconds [60, 30, 10] warns at 0, 30 and 50 s and restarts at 60 s.
 */
export function warningPlan(warnSeconds: readonly number[]): { warnings: { seconds: number; atMs: number }[]; restartAtMs: number } {
  const longest = Math.max(0, ...warnSeconds);
  const warnings = [...warnSeconds].sort((a, b) => b - a).map((seconds) => ({ seconds, atMs: (longest - seconds) * 1000 }));
  return { warnings, restartAtMs: longest * 1000 };
}

/** The warning's console line: `{seconds}` replaced wherever it stands. */
export const warningLine = (template: string, seconds: number) => template.replaceAll('{seconds}', String(seconds));
