const WIDTH = 96;
const HEIGHT = 24;

/** The last probes' latencies as a tiny inline SVG line; its label says the range in words. */
export function Sparkline({ values }: { values: number[] | undefined }) {
  if (!values || values.length === 0) return <span className="muted">—</span>;
  const max = Math.max(...values);
  const min = Math.min(...values);
  const span = Math.max(max - min, 1);
  const step = values.length > 1 ? WIDTH / (values.length - 1) : 0;
  const points = values.map((v, i) => `${(i * step).toFixed(1)},${(HEIGHT - 2 - ((v - min) / span) * (HEIGHT - 4)).toFixed(1)}`).join(' ');
  const last = values[values.length - 1] ?? 0;
  return (
    <svg
      className="sparkline"
      width={WIDTH}
      height={HEIGHT}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={`Latency of the last ${values.length} probes: ${min}–${max} ms, latest ${last} ms`}
    >
      <polyline points={points} fill="none" stroke="currentColor" strokeWidth="1.5" />
    </svg>
  );
}
