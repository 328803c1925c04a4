import type { Command } from 'commander';
import type { CreateServerSchedule, Schedule, ScheduleRun } from '../api-types.js';
import { connect, print, withGlobals } from '../context.js';
import { UsageError } from '../errors.js';
import { formatDone } from '../output.js';
import { resolveDestinationId, resolveServer } from '../resolve.js';
import { tasksFromFlags } from '../schedule-tasks.js';
import { resolveSchedule } from '../schedules.js';

interface CreateScheduleOptions {
  server: string;
  team?: string;
  cron: string;
  timezone?: string;
  onlyWhenRunning?: boolean;
  command?: string[];
  backup?: string;
  restart?: boolean;
  warn?: string;
}

/** `cairn create schedule NAME --server S --cron EXPR ...`: one task per flag, in the order the help gives. */
export function registerCreateSchedule(create: Command): void {
  withGlobals(create.command('schedule'))
    .description('create a schedule: tasks on a clock for one server. Its tasks run in this order whatever the order of the flags: '
      + 'each --command as given, then the --backup, then the --restart')
    .argument('<name>', 'unique among the server\'s schedules')
    .requiredOption('--server <server>', 'the server (name or id)')
    .requiredOption('--cron <expr>', 'five fields: minute hour day-of-month month day-of-week, e.g. "0 4 * * *" (04:00 every day)')
    .option('--timezone <tz>', 'the IANA time zone the cron is read in, e.g. Europe/Berlin', 'UTC')
    .option('--command <line>', 'send this console line (repeat for more, run in the order given)', (value: string, previous: string[] = []) => [...previous, value])
    .option('--backup <destination>', 'back the server up to this destination (name or id)')
    .option('--restart', 'restart the server')
    .option('--warn <seconds>', 'with --restart: warn the players this many seconds before the stop, e.g. 60,30,10')
    .option('--only-when-running', 'skip a run that finds the server not running')
    .option('--team <team>', 'narrows --server\'s name')
    .action(async (name: string, opts: CreateScheduleOptions, cmd: Command) => {
      // Flags are checked before anything is asked of the Controller.
      tasksFromFlags({ ...opts, backupDestinationId: opts.backup });
      const { client, format } = await connect(cmd);
      const server = await resolveServer(client, opts.server, opts.team);
      const backupDestinationId = opts.backup === undefined ? undefined : await resolveDestinationId(client, opts.backup);
      const body: CreateServerSchedule = {
        name, cron: opts.cron, timezone: opts.timezone, tasks: tasksFromFlags({ ...opts, backupDestinationId }), ...(opts.onlyWhenRunning ? { onlyWhenRunning: true } : {}),
      };
      const created = await client.post<Schedule>(`/servers/${server.id}/schedules`, body);
      const next = created.nextRunAt ? `, next run ${created.nextRunAt}` : '';
      print(formatDone('schedule', created.name, `created on server/${server.name}${next}`, created, format));
    });
}

/** `cairn run schedule NAME`: runs it now, once (202); its run goes on in the Controller. */
export function registerRun(program: Command): void {
  withGlobals(program.command('run'))
    .description('run a schedule now, once, whatever its clock says')
    .argument('<type>', 'schedule')
    .argument('<name>', 'a schedule name or id')
    .option('--server <server>', 'the schedule\'s server (name or id): narrows a name that several servers\' schedules have')
    .option('--team <team>', 'narrows --server\'s name, or the servers searched')
    .action(async (type: string, name: string, opts: { server?: string; team?: string }, cmd: Command) => {
      if (type.replace(/s$/, '') !== 'schedule') throw new UsageError(`cannot run "${type}" (only schedule)`);
      const { client, format } = await connect(cmd);
      const schedule = await resolveSchedule(client, name, opts);
      const run = await client.post<ScheduleRun>(`/schedules/${schedule.id}/run`);
      const reason = run.reason ? ` (${run.reason})` : '';
      print(formatDone('schedule', schedule.name, `run ${run.id} ${run.result}${reason}`, run, format));
    });
}
