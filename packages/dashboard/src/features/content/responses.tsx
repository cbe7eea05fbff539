import { useQuery } from '@tanstack/react-query';
import { api, must } from '../../app/api';
import { DataTable, FormError, Stats } from '../../kit';

/** A survey's or an NPS survey's responses (and for NPS: the score, promoters, detractors). */
export function Responses({ type, id }: { type: 'nps' | 'surveys'; id: string }) {
  const results = useQuery({
    queryKey: ['nps-results', id],
    enabled: type === 'nps',
    queryFn: async () =>
      (await must(api.GET('/api/nps-surveys/{id}/results', { params: { path: { id } } }))).data,
  });
  const responses = useQuery({
    queryKey: ['responses', type, id],
    queryFn: async (): Promise<{ data: { id: string; submittedAt: string; answer: unknown }[] }> => {
      if (type === 'nps') {
        const res = await must(api.GET('/api/nps-surveys/{id}/responses', { params: { path: { id } } }));
        return {
          data: res.data.map((x) => ({
            id: x.id,
            submittedAt: x.submittedAt,
            answer: { score: x.score, comment: x.comment },
          })),
        };
      }
      const res = await must(api.GET('/api/content/surveys/{id}/responses', { params: { path: { id } } }));
      return { data: res.data.map((x) => ({ id: x.id, submittedAt: x.submittedAt, answer: x.response })) };
    },
  });
  const r = results.data;
  return (
    <div className="card pad" style={{ display: 'grid', gap: 14, alignContent: 'start' }}>
      <h2>Responses</h2>
      {r ? (
        <Stats
          items={[
            { label: 'NPS', value: r.npsScore },
            { label: 'Promoters', value: `${r.promoterPercentage}%` },
            { label: 'Detractors', value: `${r.detractorPercentage}%` },
            { label: 'Responses', value: r.totalResponses },
          ]}
        />
      ) : null}
      {responses.isError ? <FormError error={responses.error} /> : null}
      {responses.data?.data.length === 0 ? <p className="muted">No responses yet.</p> : null}
      {responses.data && responses.data.data.length > 0 ? (
        <DataTable
          rows={responses.data.data}
          rowKey={(x) => x.id}
          columns={[
            { name: 'Submitted', cell: (x) => new Date(x.submittedAt).toLocaleString() },
            { name: 'Answer', cell: (x) => <code>{JSON.stringify(x.answer)}</code> },
          ]}
        />
      ) : null}
    </div>
  );
}
