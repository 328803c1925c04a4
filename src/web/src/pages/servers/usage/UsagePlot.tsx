import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { UsageColumns } from './usage-series';

const height = 140;
/** Tick steps for counts: a player is never fractional. */
const wholeSteps = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];

export interface UsagePlotProps {
  /** The chart's accessible name; its current value is the element `describedBy` names. */
  label: string;
  describedBy: string;
  columns: UsageColumns;
  /** How a tick of the value axis reads; a module constant, since a new one draws the chart anew. */
  tick: (value: number) => string;
  /** A count (players): ticks only at whole numbers. */
  whole?: boolean;
}

/** The stylesheet's colours, so the canvas matches the page around it. */
function colours(el: HTMLElement) {
  const style = getComputedStyle(el);
  const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return { line: read('--accent', '#1f4f8a'), ink: read('--muted', '#4a5561'), rule: read('--border', '#c3ccd6') };
}

function optionsFor(el: HTMLElement, tick: (value: number) => string, whole: boolean): uPlot.Options {
  const { line, ink, rule } = colours(el);
  const axis = { stroke: ink, grid: { stroke: rule, width: 1 }, ticks: { stroke: rule, width: 1 } };
  return {
    width: el.clientWidth, height,
    // The value is written beside the chart and the name is on the container; a hover readout would be a second, inaccessible one.
    legend: { show: false },
    cursor: { show: false },
    scales: { y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.15 : 1] } },
    axes: [axis, { ...axis, size: 72, values: (_u, splits) => splits.map(tick), ...(whole ? { incrs: wholeSteps } : {}) }],
    // The stylesheet's colours are #rrggbb: two more digits make the area under the line a faint tint of it.
    series: [{}, { stroke: line, width: 2, fill: `${line}22` }],
  };
}

/**
 * One uPlot chart in a container with role `img`: uPlot draws on a canvas, so the container
 * carries the name and the value text beside it is what a screen reader reads.
 */
export function UsagePlot({ label, describedBy, columns, tick, whole = false }: UsagePlotProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const latest = useRef(columns);

  // Declared first so it runs first: the chart made below starts from the newest columns.
  useEffect(() => {
    latest.current = columns;
    plot.current?.setData(columns);
  }, [columns]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const u = new uPlot(optionsFor(el, tick, whole), latest.current, el);
    plot.current = u;
    const resize = new ResizeObserver(([entry]) => u.setSize({ width: Math.floor(entry.contentRect.width), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, [tick, whole]);

  return <div ref={box} className="usage-plot" role="img" aria-label={label} aria-describedby={describedBy} />;
}
