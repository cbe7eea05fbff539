import { useQuery } from '@tanstack/react-query';
import { api, must } from '../../app/api';

/** The first 100 flows, for a select of flows (task lists, experiment variants, the funnel). */
export function useFlowOptions() {
  return useQuery({
    queryKey: ['flows', 'options'],
    queryFn: () => must(api.GET('/api/flows', { params: { query: { limit: '100' } } })),
  });
}
