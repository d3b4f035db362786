/** A stacked bar chart over time, drawn by uPlot on a canvas. */
import { html } from 'htm/preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface Stack {
  label: string;
  values: number[];
  /** Which colour: the caller keeps one per label as filters come and go (else its place in the stack). */
  color?: number;
}

/**
 * Whole-number steps for the y axis (uPlot's defaults include 0.2, 0.5): every value charted is whole,
 * counts and money alike (integer micro-units), so no tick falls at half a request or a fraction of a
 * micro-unit, which money() cannot show.
 */
const WHOLE_STEPS = Array.from({ length: 13 }, (_, e) => [1, 2, 5].map((m) => m * 10 ** e)).flat();

/** Steps of the time axis for bars a day wide: whole days, so no tick falls at 8am of a daily bar. */
const DAY_STEPS = [1, 2, 3, 7, 14, 30, 61, 91, 182, 365].map((d) => d * 86_400);

const COLORS = ['#2563eb', '#f59e0b', '#10b981', '#ef4444', '#8b5cf6', '#0891b2', '#db2777', '#65a30d'];

/**
 * uPlot has no stacking of its own: each series is drawn as the running total up to it, tallest first,
 * so the shorter ones paint over it; the legend shows each model's own value.
 */
function options(
  width: number,
  stacks: Stack[],
  format: (v: number) => string,
  daily: boolean,
): uPlot.Options {
  const bars = uPlot.paths.bars!({ size: [0.7, 48] });
  const series: uPlot.Series[] = stacks
    .map((s, i) => ({
      label: s.label,
      fill: COLORS[(s.color ?? i) % COLORS.length],
      stroke: COLORS[(s.color ?? i) % COLORS.length],
      paths: bars,
      points: { show: false },
      value: (_u: uPlot, _v: number | null, _si: number, idx: number | null) =>
        idx === null ? '' : format(s.values[idx] ?? 0),
    }))
    .reverse();
  return {
    width,
    height: 280,
    series: [{ label: 'Time (UTC)' }, ...series],
    axes: [
      daily ? { incrs: DAY_STEPS } : {},
      { values: (_u, ticks) => ticks.map(format), size: 80, incrs: WHOLE_STEPS },
    ],
    // No bar at all (every total null) leaves uPlot no max: the axis then shows 0 to 1.
    scales: {
      x: { time: true },
      y: { range: (_u, _min, max) => [0, Math.max(1, Number.isFinite(max) ? max : 0) * 1.1] },
    },
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
  };
}

export function StackedChart(props: {
  x: number[];
  stacks: Stack[];
  format: (v: number) => string;
  /** One bar a day: ticks only at midnights. */
  daily: boolean;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!box.current) return;
    // An empty total is no bar (null), not a bar of height 0, which uPlot strokes along the axis.
    const totals = props.stacks.map((_, i) =>
      props.x.map(
        (_x, j) => props.stacks.slice(0, i + 1).reduce((sum, s) => sum + (s.values[j] ?? 0), 0) || null,
      ),
    );
    const data: uPlot.AlignedData = [props.x, ...totals.reverse()];
    const plot = new uPlot(
      options(box.current.clientWidth || 800, props.stacks, props.format, props.daily),
      data,
      box.current,
    );
    return () => plot.destroy();
  }, [props.x, props.stacks, props.format, props.daily]);
  return html`<div class="chart" ref=${box}></div>`;
}
