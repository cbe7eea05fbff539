import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, must, type Role } from '../../app/api';
import { useCan, useSession } from '../../app/session';
import { Button, ListCard, StatusBadge, usePagedQuery } from '../../kit';
import { InviteByEmail, InviteLink } from './invites';
import { ROLES } from './roles';

/** Team: the members (the owner changes roles; admins remove and resend invites), and the invite forms. */
export function Team() {
  const client = useQueryClient();
  const me = useSession();
  const canAdmin = useCan('ADMIN');
  const isOwner = me.role === 'OWNER';
  const [page, setPage] = useState(1);
  const members = usePagedQuery(['members'], page, (paging) =>
    must(api.GET('/api/tenants/members', { params: { query: paging } })),
  );
  const refresh = () => void client.invalidateQueries({ queryKey: ['members'] });
  const changeRole = useMutation({
    mutationFn: (v: { id: string; role: Role }) =>
      must(
        api.PATCH('/api/tenants/members/{id}', { params: { path: { id: v.id } }, body: { role: v.role } }),
      ),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/api/tenants/members/{id}', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  const resend = useMutation({
    mutationFn: (id: string) =>
      must(api.POST('/api/tenants/members/{id}/resend-invite', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  return (
    <div style={{ display: 'grid', gap: 18 }}>
      <ListCard
        title="Members"
        error={changeRole.error ?? remove.error ?? resend.error}
        query={members}
        pages={{ label: 'Member pages', onPage: setPage }}
        columns={[
          {
            name: 'Email',
            cell: (m) => (
              <>
                {m.email}
                {m.userId === me.user.id ? <span className="muted small"> (you)</span> : null}
              </>
            ),
          },
          {
            name: 'Role',
            cell: (m) =>
              isOwner && m.userId !== me.user.id ? (
                <select
                  aria-label={`Role of ${m.email}`}
                  value={m.role}
                  onChange={(e) => changeRole.mutate({ id: m.id, role: e.target.value as Role })}
                  style={{ width: 130 }}
                >
                  {ROLES.map((r) => (
                    <option key={r}>{r}</option>
                  ))}
                </select>
              ) : (
                m.role
              ),
          },
          { name: 'Status', cell: (m) => <StatusBadge status={m.isPending ? 'PENDING' : 'ACTIVE'} /> },
          {
            name: 'Actions',
            header: <span className="sr-only">Actions</span>,
            cellStyle: { textAlign: 'right' },
            cell: (m) => (
              <>
                {canAdmin && m.isPending ? (
                  <Button variant="ghost" onClick={() => resend.mutate(m.id)}>
                    Resend invite
                  </Button>
                ) : null}
                {canAdmin && m.userId !== me.user.id ? (
                  <Button
                    variant="ghost"
                    onClick={() => remove.mutate(m.id)}
                    aria-label={`Remove ${m.email}`}
                  >
                    Remove
                  </Button>
                ) : null}
              </>
            ),
          },
        ]}
      />
      {canAdmin ? (
        <div className="grid-2">
          <InviteByEmail onSent={refresh} />
          <InviteLink />
        </div>
      ) : null}
    </div>
  );
}
