import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const COLORS = ['#4f46e5', '#db2777', '#059669', '#d97706', '#0891b2', '#7c3aed'];

/**
 * A daily line chart (uPlot, loaded with this chunk only): one line per series, values 0–1 drawn
 * as percentages. A table of the same numbers follows for screen readers.
 */
export default function SeriesChart({
  series,
}: {
  series: { label: string; points: { date: string; value: number }[] }[];
}) {
  const ref = useRef<HTMLDivElement>(null);
  const days = [...new Set(series.flatMap((s) => s.points.map((p) => p.date)))].sort();
  const key = JSON.stringify(series);
  // biome-ignore lint/correctness/useExhaustiveDependencies: redrawn when the data changes (key)
  useEffect(() => {
    const el = ref.current;
    if (!el || days.length === 0) return;
    const xs = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const data: uPlot.AlignedData = [
      xs,
      ...series.map((s) => days.map((d) => s.points.find((p) => p.date === d)?.value ?? null)),
    ];
    const chart = new uPlot(
      {
        width: el.clientWidth || 800,
        height: 260,
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(0.05, max * 1.2)] } },
        axes: [{}, { values: (_u, ticks) => ticks.map((t) => `${(t * 100).toFixed(0)}%`) }],
        series: [
          {},
          ...series.map((s, i) => ({
            label: s.label,
            stroke: COLORS[i % COLORS.length],
            width: 2,
            value: (_u: uPlot, v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(1)}%`),
          })),
        ],
      },
      data,
      el,
    );
    const resize = () => chart.setSize({ width: el.clientWidth, height: 260 });
    addEventListener('resize', resize);
    return () => {
      removeEventListener('resize', resize);
      chart.destroy();
    };
  }, [key]);
  if (days.length === 0) return <p className="muted">No participants yet.</p>;
  return (
    <div>
      <div ref={ref} aria-hidden="true" />
      <table className="sr-only">
        <caption>Cumulative conversion rate by day</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            {series.map((s) => (
              <th scope="col" key={s.label}>
                {s.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {days.map((d) => (
            <tr key={d}>
              <th scope="row">{d}</th>
              {series.map((s) => {
                const v = s.points.find((p) => p.date === d)?.value;
                return <td key={s.label}>{v === undefined ? '—' : `${(v * 100).toFixed(1)}%`}</td>;
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
