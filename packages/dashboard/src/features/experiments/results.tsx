import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { api, must } from '../../app/api';
import { DataTable, FormError, Loading, Notice, percent } from '../../kit';

const SeriesChart = lazy(() => import('./series-chart'));

/** A lift as a signed percentage: `+12.5%`. */
const signed = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;

/** A started experiment's results: the sample-ratio check, the table by variant, the daily conversion rate. */
export function Results({ id }: { id: string }) {
  const results = useQuery({
    queryKey: ['experiment-results', id],
    queryFn: async () =>
      (await must(api.GET('/api/experiments/{id}/results', { params: { path: { id } } }))).data,
  });
  const stats = useQuery({
    queryKey: ['experiment-stats', id],
    queryFn: async () =>
      (await must(api.POST('/api/experiments/{id}/compute-results', { params: { path: { id } } }))).data,
  });
  if (results.isPending || stats.isPending) return <Loading label="Computing results" />;
  if (results.isError) return <FormError error={results.error} />;
  if (stats.isError) return <FormError error={stats.error} />;
  const s = stats.data;
  return (
    <div className="card pad" style={{ display: 'grid', gap: 16 }}>
      <h2>Results</h2>
      {s.srm.mismatch ? (
        <Notice kind="warning">
          Sample ratio mismatch: the variants' sizes differ from their splits more than chance explains (p ={' '}
          {s.srm.pValue?.toPrecision(2)}). Check the assignment before trusting these results.
        </Notice>
      ) : null}
      <DataTable
        label="Results by variant"
        rows={s.variants}
        rowKey={(v) => v.variantId}
        columns={[
          {
            name: 'Variant',
            cell: (v) => (
              <>
                {v.variantName} {v.isControl ? <span className="badge">control</span> : null}
              </>
            ),
          },
          { name: 'Participants', num: true, cell: (v) => v.sampleSize },
          { name: 'Conversions', num: true, cell: (v) => v.conversions },
          { name: 'Conversion rate', num: true, cell: (v) => percent(v.conversionRate) },
          {
            name: 'Lift (95% interval)',
            num: true,
            cell: (v) =>
              v.lift
                ? `${signed(v.lift.estimate)} (${signed(v.lift.ciLow)} to ${signed(v.lift.ciHigh)})`
                : '—',
          },
          { name: 'p-value', num: true, cell: (v) => (v.pValue === null ? '—' : v.pValue.toPrecision(2)) },
          {
            name: 'Chance to beat control',
            num: true,
            cell: (v) => (v.probabilityToBeatControl === null ? '—' : percent(v.probabilityToBeatControl)),
          },
        ]}
      />
      <h2>Conversion rate by day</h2>
      <Suspense fallback={<Loading label="Loading chart" />}>
        <SeriesChart
          series={results.data.variants.map((v) => ({
            label: v.variantName,
            points: v.results.map((r) => ({
              date: r.date,
              value: r.participants > 0 ? r.conversions / r.participants : 0,
            })),
          }))}
        />
      </Suspense>
    </div>
  );
}
