import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, must } from '../../app/api';
import { useCan } from '../../app/session';
import { Button, downloadJson, FormError, Modal, Notice, StatusBadge } from '../../kit';

const DONE = ['completed', 'failed'];

/**
 * The end user's privacy requests (OWNER, ADMIN; by their userId, docs/privacy.md): "Export data"
 * downloads everything stored about them as JSON; "Delete user" asks for a confirmation, requests
 * the deletion and shows the request's status until the job has finished (polled every 3 s).
 */
export function PrivacyActions({ userId }: { userId: string }) {
  const canAdmin = useCan('ADMIN');
  const [confirming, setConfirming] = useState(false);
  const exported = useMutation({
    mutationFn: () => must(api.GET('/api/privacy/exports/{userId}', { params: { path: { userId } } })),
    onSuccess: (res) => downloadJson(`end-user-${userId}.json`, res.data),
  });
  const erase = useMutation({
    mutationFn: async () => (await must(api.POST('/api/privacy/deletions', { body: { userId } }))).data,
    onSuccess: () => setConfirming(false),
  });
  const requested = erase.data?.id;
  const deletion = useQuery({
    queryKey: ['privacy-deletion', requested],
    enabled: requested !== undefined,
    initialData: erase.data,
    queryFn: async () =>
      (await must(api.GET('/api/privacy/deletions/{id}', { params: { path: { id: requested ?? '' } } })))
        .data,
    refetchInterval: (q) => (q.state.data && DONE.includes(q.state.data.status) ? false : 3_000),
  });
  if (!canAdmin) return null;
  const status = deletion.data?.status;
  return (
    <div className="privacy-actions">
      <Button busy={exported.isPending} onClick={() => exported.mutate()}>
        Export data
      </Button>
      <Button variant="danger" disabled={requested !== undefined} onClick={() => setConfirming(true)}>
        Delete user
      </Button>
      {exported.error ? <FormError error={exported.error} /> : null}
      {status ? (
        <Notice kind={status === 'failed' ? 'error' : status === 'completed' ? 'success' : 'info'}>
          Deletion <StatusBadge status={status} />
          {status === 'completed'
            ? ' — their data is erased; counts already aggregated stay, anonymous.'
            : status === 'failed'
              ? ` — ${deletion.data?.lastError ?? 'the job failed'}; it is retried.`
              : ' — the job erases their data in a moment.'}
        </Notice>
      ) : null}
      <Modal open={confirming} title={`Delete ${userId}?`} onClose={() => setConfirming(false)}>
        <div className="modal-body">
          <p>
            Every row stored about <strong>{userId}</strong> will be erased: events, responses, enrollments,
            assignments, what they completed. This cannot be undone.
          </p>
          {erase.error ? <FormError error={erase.error} /> : null}
        </div>
        <div className="modal-actions">
          <Button onClick={() => setConfirming(false)}>Cancel</Button>
          <Button variant="danger" busy={erase.isPending} onClick={() => erase.mutate()}>
            Delete user
          </Button>
        </div>
      </Modal>
    </div>
  );
}
