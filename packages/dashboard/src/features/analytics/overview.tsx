import { useQuery } from '@tanstack/react-query';
import { api, must } from '../../app/api';
import { FormError, Loading, percent, Stats } from '../../kit';
import type { Range } from './date-range';

/** The overview: active users, events, flow completions and rate, published flows, over the range. */
export function Overview({ range }: { range: Range }) {
  const overview = useQuery({
    queryKey: ['analytics', 'overview', range],
    queryFn: async () => (await must(api.GET('/api/analytics/overview', { params: { query: range } }))).data,
  });
  if (overview.isPending) return <Loading />;
  if (overview.isError) return <FormError error={overview.error} />;
  const o = overview.data;
  return (
    <Stats
      items={[
        { label: 'Active users', value: o.activeUsers.toLocaleString() },
        { label: 'Events', value: o.totalEvents.toLocaleString() },
        { label: 'Flow completions', value: o.flowCompletions.toLocaleString() },
        { label: 'Completion rate', value: percent(o.completionRate) },
        { label: 'Published flows', value: `${o.publishedFlows} / ${o.totalFlows}` },
      ]}
    />
  );
}
