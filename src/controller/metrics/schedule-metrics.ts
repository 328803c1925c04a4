import { Counter, type Registry } from 'prom-client';
import { scheduleRunResults } from '../schemas/schedules.js';
import type { RunRecords } from '../services/schedules/run-records.js';

const endedResults = scheduleRunResults.filter((r) => r !== 'RUNNING');

/** `cairn_schedule_runs_total{result}`: schedule runs that ended, by result; every series exists from the start at 0. */
export function registerScheduleMetrics(registry: Registry, runs: Pick<RunRecords, 'onEnded'>): void {
  const ended = new Counter({ name: 'cairn_schedule_runs_total', help: `Schedule runs that ended, by result (${endedResults.join(', ')}).`, labelNames: ['result'] as const, registers: [registry] });
  for (const result of endedResults) ended.inc({ result }, 0);
  runs.onEnded((run) => ended.inc({ result: run.result }));
}
