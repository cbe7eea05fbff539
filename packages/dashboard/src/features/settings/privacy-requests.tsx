import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, must } from '../../app/api';
import { useCan } from '../../app/session';
import {
  Button,
  downloadJson,
  Empty,
  Form,
  FormFoot,
  fieldError,
  formatDate,
  ListCard,
  Notice,
  StatusBadge,
  TextField,
  usePagedQuery,
} from '../../kit';

/** What a completed deletion removed, in one line (`end_users 1, events 12`). */
const removedLine = (removed: Record<string, number>) =>
  Object.entries(removed)
    .filter(([, n]) => n > 0)
    .map(([table, n]) => `${table} ${n}`)
    .join(', ') || 'nothing stored';

/**
 * Privacy requests (OWNER, ADMIN): erase an end user by the SDK's userId (a job runs it; the list
 * shows its status) or download everything stored about one as JSON (docs/privacy.md).
 */
export function PrivacyRequests() {
  const client = useQueryClient();
  const canAdmin = useCan('ADMIN');
  const [page, setPage] = useState(1);
  const [userId, setUserId] = useState('');
  const [confirming, setConfirming] = useState(false);
  const requests = usePagedQuery(
    ['privacy-deletions'],
    page,
    (paging) => must(api.GET('/api/privacy/deletions', { params: { query: paging } })),
    { enabled: canAdmin, refetchInterval: 3_000 },
  );
  const erase = useMutation({
    mutationFn: () => must(api.POST('/api/privacy/deletions', { body: { userId } })),
    onSuccess: () => {
      setConfirming(false);
      setUserId('');
      void client.invalidateQueries({ queryKey: ['privacy-deletions'] });
    },
  });
  const exported = useMutation({
    mutationFn: (id: string) =>
      must(api.GET('/api/privacy/exports/{userId}', { params: { path: { userId: id } } })),
    onSuccess: (res, id) => downloadJson(`end-user-${id}.json`, res.data),
  });
  if (!canAdmin) return <Notice kind="info">Only owners and admins can handle privacy requests.</Notice>;
  const error = erase.error ?? exported.error;
  return (
    <div style={{ display: 'grid', gap: 18 }}>
      <section className="card pad">
        <h2 style={{ marginTop: 0, marginBottom: 4 }}>End-user data</h2>
        <p className="muted small" style={{ marginTop: 0, marginBottom: 14 }}>
          Export everything stored about an end user, or erase it. Counts already aggregated stay, anonymous.
        </p>
        <Form onSubmit={() => (confirming ? erase.mutate() : setConfirming(true))}>
          <TextField
            label="End user's userId"
            hint="The userId your app passes to the SDK's identify()."
            placeholder="user-123"
            value={userId}
            onChange={(e) => {
              setUserId(e.target.value);
              setConfirming(false);
              erase.reset();
              exported.reset();
            }}
            error={fieldError(error, 'userId')}
          />
          {confirming ? (
            <Notice kind="warning">
              Every row stored about <strong>{userId}</strong> will be erased: events, responses, enrollments,
              assignments. This cannot be undone.
            </Notice>
          ) : null}
          <FormFoot error={error} claimed={['userId']}>
            <Button
              disabled={!userId.trim()}
              busy={exported.isPending}
              onClick={() => exported.mutate(userId.trim())}
            >
              Download export (JSON)
            </Button>
            <Button type="submit" variant="danger" disabled={!userId.trim()} busy={erase.isPending}>
              {confirming ? 'Confirm deletion' : 'Request deletion'}
            </Button>
          </FormFoot>
        </Form>
      </section>
      <ListCard
        title="Deletion requests"
        query={requests}
        empty={
          <div className="pad">
            <Empty title="No deletion requests yet">Requests appear here with their progress.</Empty>
          </div>
        }
        pages={{ label: 'Deletion request pages', onPage: setPage }}
        columns={[
          { name: 'userId', cell: (r) => <code>{r.userId}</code> },
          { name: 'Status', cell: (r) => <StatusBadge status={r.status} /> },
          {
            name: 'Removed',
            cellClass: 'muted small',
            cell: (r) =>
              r.status === 'completed' ? removedLine(r.removed) : r.status === 'failed' ? r.lastError : '—',
          },
          { name: 'Requested', cell: (r) => formatDate(r.createdAt) },
          { name: 'Completed', cell: (r) => (r.completedAt ? formatDate(r.completedAt) : '—') },
        ]}
      />
    </div>
  );
}
