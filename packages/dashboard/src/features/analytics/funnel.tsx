import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { api, must } from '../../app/api';
import { DataTable, Empty, FormError, Loading, percent, SelectField, Stats } from '../../kit';
import { useFlowOptions } from '../flows';
import type { Range } from './date-range';

/** A flow's funnel: starts, completions, and each step's reach and drop-off as bars. */
export function Funnel({ range }: { range: Range }) {
  const [params, setParams] = useSearchParams();
  const flows = useFlowOptions();
  const flowId = params.get('flow') ?? flows.data?.data[0]?.id ?? '';
  const funnel = useQuery({
    queryKey: ['analytics', 'flow', flowId, range],
    enabled: Boolean(flowId),
    queryFn: async () =>
      (await must(api.GET('/api/analytics/flows/{flowId}', { params: { path: { flowId }, query: range } })))
        .data,
  });
  if (flows.isPending) return <Loading />;
  if (flows.isError) return <FormError error={flows.error} />;
  if (flows.data.data.length === 0)
    return <Empty title="No flows yet">Create and publish a flow to see its funnel.</Empty>;
  const f = funnel.data;
  const top = Math.max(1, f?.stepDropOff[0]?.reached ?? 1, f?.totalStarts ?? 0);
  return (
    <div className="card pad" style={{ display: 'grid', gap: 16 }}>
      <div style={{ maxWidth: 360 }}>
        <SelectField
          label="Flow"
          value={flowId}
          onChange={(e) => {
            const next = new URLSearchParams(params);
            next.set('flow', e.target.value);
            setParams(next, { replace: true });
          }}
          options={flows.data.data.map((x) => ({ value: x.id, label: x.name }))}
        />
      </div>
      {funnel.isPending ? <Loading /> : null}
      {funnel.isError ? <FormError error={funnel.error} /> : null}
      {f ? (
        <>
          <Stats
            items={[
              { label: 'Started', value: f.totalStarts },
              { label: 'Completed', value: f.completed },
              { label: 'Dismissed or skipped', value: f.dismissed + f.skipped },
              { label: 'Completion rate', value: percent(f.completionRate) },
            ]}
          />
          <h2>Step drop-off</h2>
          {f.stepDropOff.length === 0 ? (
            <p className="muted">This flow has no steps.</p>
          ) : (
            <DataTable
              label="Funnel"
              rows={f.stepDropOff}
              rowKey={(s) => s.stepId}
              columns={[
                { name: 'Step', cell: (s) => `${s.stepOrder + 1}. ${s.stepTitle ?? 'Untitled step'}` },
                {
                  name: 'Reached',
                  cellStyle: { width: '45%' },
                  cell: (s) => (
                    <div className="bar" aria-hidden="true">
                      <span style={{ width: `${(100 * s.reached) / top}%` }} />
                    </div>
                  ),
                },
                { name: 'Users', num: true, cell: (s) => s.reached },
                { name: 'Drop-off', num: true, cell: (s) => `${s.dropOffCount} (${percent(s.dropOffRate)})` },
              ]}
            />
          )}
        </>
      ) : null}
    </div>
  );
}
