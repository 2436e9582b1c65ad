import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Schemas } from '../../api/client';
import { useColorScheme } from '../../layout/theme';

type Run = NonNullable<Schemas['ProbeRun']>;

const REGION_STROKES: Record<string, string> = { 'us-east-1': '#1f77b4', 'eu-west-1': '#d95f02', 'ap-southeast-1': '#7570b3' };
const DASHES: Record<string, number[]> = { 'us-east-1': [], 'eu-west-1': [6, 3], 'ap-southeast-1': [2, 2] };

/** The runs as one aligned table: x is the round's time, one latency series per region (gaps where a region did not run). */
function align(runs: Run[], regions: string[]): uPlot.AlignedData {
  const times = [...new Set(runs.map((r) => Math.floor(new Date(r.startedAt).getTime() / 1000)))].sort((a, b) => a - b);
  const index = new Map(times.map((t, i) => [t, i]));
  const series = regions.map(() => times.map((): number | null => null));
  for (const run of runs) {
    const column = regions.indexOf(run.region);
    const row = index.get(Math.floor(new Date(run.startedAt).getTime() / 1000));
    const target = series[column];
    if (target && row !== undefined && run.statusCode !== null) target[row] = run.latencyMs;
  }
  return [times, ...series];
}

/**
 * Latency per region (uPlot, loaded only on this page). Each region also differs by dash, not by
 * colour alone; the table of numbers beside it (uptime, P95) says the same in words.
 */
export default function LatencyChart({ runs, label }: { runs: Run[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  // The canvas takes its colours when drawn: a theme change draws it again.
  const scheme = useColorScheme();
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const regions = [...new Set(runs.map((r) => r.region))].sort();
    const text = getComputedStyle(element).color;
    const grid = getComputedStyle(element).getPropertyValue('--border').trim() || text;
    const plot = new uPlot(
      {
        width: Math.max(element.clientWidth, 280),
        height: 220,
        axes: [
          { stroke: text, grid: { stroke: grid }, ticks: { stroke: grid } },
          { stroke: text, label: 'ms', grid: { stroke: grid }, ticks: { stroke: grid } },
        ],
        series: [{}, ...regions.map((region) => ({ label: region, stroke: REGION_STROKES[region] ?? text, dash: DASHES[region] ?? [], width: 2, spanGaps: true }))],
      },
      align(runs, regions),
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(element.clientWidth, 280), height: 220 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [runs, scheme]);
  return <div ref={box} className="chart" role="img" aria-label={label} />;
}
