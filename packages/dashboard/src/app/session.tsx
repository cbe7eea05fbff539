import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext } from 'react';
import { api, must, type Role } from './api';

export interface Me {
  user: { id: string; email: string; name: string | null };
  tenant: { id: string; name: string; slug: string };
  role: Role;
}

const RANK: Record<Role, number> = { VIEWER: 0, EDITOR: 1, ADMIN: 2, OWNER: 3 };

export const meQueryKey = ['me'] as const;

export function useMe() {
  return useQuery({
    queryKey: meQueryKey,
    queryFn: async () => (await must(api.GET('/api/auth/me'))).data as Me,
    retry: false,
    staleTime: 60_000,
  });
}

const SessionContext = createContext<Me | null>(null);

export function SessionProvider({ me, children }: { me: Me; children: ReactNode }) {
  return <SessionContext.Provider value={me}>{children}</SessionContext.Provider>;
}

export function useSession(): Me {
  const me = useContext(SessionContext);
  if (!me) throw new Error('useSession outside a signed-in page');
  return me;
}

/** Whether the signed-in member's role is at least `role` (VIEWER < EDITOR < ADMIN < OWNER). */
export function useCan(role: Role): boolean {
  return RANK[useSession().role] >= RANK[role];
}

/**
 * The site the dashboard files new records under. The API has no sites resource yet (siteId is
 * an opaque uuid on each record): the dashboard uses one site per company, the tenant's id.
 */
export function useSiteId(): string {
  return useSession().tenant.id;
}

export function useSignOut() {
  const client = useQueryClient();
  return async () => {
    await api.POST('/api/auth/logout').catch(() => undefined);
    client.clear();
    location.assign('/signin');
  };
}
