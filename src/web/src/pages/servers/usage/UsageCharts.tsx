import { lazy, Suspense, useId, useMemo } from 'react';
import type { ServerDetail, ServerUsage } from '../../../api/types';
import { formatBytes, formatCores, formatPlayers, MiB } from '../../../format/units';
import { columnsOf, type UsageColumns } from './usage-series';

// uPlot and its stylesheet come with the first chart drawn, not with the server page.
const UsagePlot = lazy(async () => ({ default: (await import('./UsagePlot')).UsagePlot }));

const coresTick = (cores: number) => formatCores(cores * 1000);
const mibTick = (mib: number) => formatBytes(mib * MiB);
const countTick = (count: number) => String(count);

interface ChartProps {
  label: string;
  value: string;
  columns: UsageColumns;
  tick: (value: number) => string;
  whole?: boolean;
}

function Chart({ label, value, columns, tick, whole }: ChartProps) {
  const valueId = useId();
  return (
    <div className="usage-chart">
      <p className="usage-value"><span>{label}</span> <strong id={valueId}>{value}</strong></p>
      <Suspense fallback={<div className="usage-plot" />}>
        <UsagePlot label={label} describedBy={valueId} columns={columns} tick={tick} whole={whole} />
      </Suspense>
    </div>
  );
}

/**
 * CPU, memory and players of the window, each with its value now. Players come from the
 * server's detail, which also says the most it takes; a stopped server has no value now.
 */
export function UsageCharts({ usage, server }: { usage: ServerUsage; server: ServerDetail }) {
  const cpu = useMemo(() => columnsOf(usage, (s) => s.cpuMillis / 1000), [usage]);
  const memory = useMemo(() => columnsOf(usage, (s) => s.memoryBytes / MiB), [usage]);
  const players = useMemo(() => columnsOf(usage, (s) => s.playersOnline), [usage]);
  const now = server.status.runtimeState === 'RUNNING' ? usage.items.at(-1) : undefined;
  const stopped = 'not running';
  return (
    <div className="usage-charts">
      <Chart label="CPU usage" value={now ? formatCores(now.cpuMillis) : stopped} columns={cpu} tick={coresTick} />
      <Chart label="Memory usage" value={now ? formatBytes(now.memoryBytes) : stopped} columns={memory} tick={mibTick} />
      <Chart label="Players online" value={now ? formatPlayers(server.status.players, now.playersOnline) : stopped} columns={players} tick={countTick} whole />
    </div>
  );
}
