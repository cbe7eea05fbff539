import { useQuery } from '@tanstack/react-query';
import { api, must } from '../../app/api';

/** Who published: the tenant's members by user id, as their email (the first 100 members). */
export function usePublishers(): Map<string, string> {
  const members = useQuery({
    queryKey: ['members', 'publishers'],
    staleTime: 60_000,
    queryFn: async () =>
      (await must(api.GET('/api/tenants/members', { params: { query: { limit: '100' } } }))).data,
  });
  return new Map((members.data ?? []).flatMap((m) => (m.userId ? [[m.userId, m.email] as const] : [])));
}
