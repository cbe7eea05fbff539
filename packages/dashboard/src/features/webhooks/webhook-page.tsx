import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router';
import { api, must } from '../../app/api';
import {
  Button,
  Crumb,
  FormError,
  formatDate,
  ListCard,
  Loading,
  Notice,
  Page,
  StatusBadge,
  usePagedQuery,
} from '../../kit';

/** One endpoint: enable or disable it, send a test event, rotate its secret, and its delivery log (replay). */
export default function WebhookPage() {
  const { id = '' } = useParams();
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const [secret, setSecret] = useState<string>();
  const hook = useQuery({
    queryKey: ['webhook', id],
    queryFn: () => must(api.GET('/api/webhooks/{id}', { params: { path: { id } } })),
  });
  const deliveries = usePagedQuery(['webhook-deliveries', id], page, (paging) =>
    must(api.GET('/api/webhooks/{id}/deliveries', { params: { path: { id }, query: paging } })),
  );
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ['webhook-deliveries', id] });
    void client.invalidateQueries({ queryKey: ['webhook', id] });
    void client.invalidateQueries({ queryKey: ['webhooks'] });
  };
  const sendTest = useMutation({
    mutationFn: () => must(api.POST('/api/webhooks/{id}/test', { params: { path: { id } } })),
    onSuccess: () => setTimeout(refresh, 700),
  });
  const replay = useMutation({
    mutationFn: (did: string) =>
      must(api.POST('/api/webhooks/{id}/deliveries/{did}/replay', { params: { path: { id, did } } })),
    onSuccess: () => setTimeout(refresh, 700),
  });
  const setEnabled = useMutation({
    mutationFn: (enabled: boolean) =>
      must(api.PATCH('/api/webhooks/{id}', { params: { path: { id } }, body: { enabled } })),
    onSuccess: refresh,
  });
  const rotate = useMutation({
    mutationFn: () => must(api.POST('/api/webhooks/{id}/rotate-secret', { params: { path: { id } } })),
    onSuccess: (res) => setSecret(res.data.secret),
  });
  if (hook.isPending) return <Loading />;
  if (hook.isError) return <FormError error={hook.error} />;
  const h = hook.data.data;
  return (
    <Page
      title={
        <Crumb to="/webhooks" list="Webhooks">
          {h.url}
        </Crumb>
      }
      description={`${h.events.join(', ')}${h.description ? ` — ${h.description}` : ''}`}
      actions={
        <>
          <Button onClick={() => sendTest.mutate()} busy={sendTest.isPending} disabled={!h.enabled}>
            Send test event
          </Button>
          <Button onClick={() => rotate.mutate()} busy={rotate.isPending}>
            Rotate secret
          </Button>
          <Button onClick={() => setEnabled.mutate(!h.enabled)} busy={setEnabled.isPending}>
            {h.enabled ? 'Disable' : 'Enable'}
          </Button>
        </>
      }
    >
      <div style={{ display: 'grid', gap: 18 }}>
        {!h.enabled ? (
          <Notice kind="warning">Disabled{h.disabledReason ? `: ${h.disabledReason}` : ''}.</Notice>
        ) : null}
        {secret ? (
          <Notice kind="warning">
            New signing secret (shown once; the previous one keeps signing for 24 hours):{' '}
            <code>{secret}</code>
          </Notice>
        ) : null}
        <FormError error={sendTest.error ?? replay.error ?? setEnabled.error ?? rotate.error} />
        <ListCard
          title="Deliveries"
          actions={<Button onClick={refresh}>Refresh</Button>}
          query={deliveries}
          pages={{ label: 'Delivery pages', onPage: setPage }}
          columns={[
            { name: 'Created', cell: (d) => formatDate(d.createdAt) },
            { name: 'Event', cell: (d) => d.eventType },
            { name: 'Status', cell: (d) => <StatusBadge status={d.status.toUpperCase()} /> },
            { name: 'Attempts', num: true, cell: (d) => d.attempts },
            { name: 'Response', cell: (d) => d.responseStatus ?? d.lastError ?? '—' },
            { name: 'Latency', num: true, cell: (d) => (d.latencyMs === null ? '—' : `${d.latencyMs} ms`) },
            {
              name: 'Body',
              cell: (d) => (
                <code className="small" title={d.responseBody ?? ''}>
                  {(d.responseBody ?? '').slice(0, 60)}
                </code>
              ),
            },
            {
              name: 'Actions',
              header: <span className="sr-only">Actions</span>,
              cellStyle: { textAlign: 'right' },
              cell: (d) =>
                d.status === 'pending' ? null : (
                  <Button onClick={() => replay.mutate(d.id)} aria-label={`Replay delivery ${d.messageId}`}>
                    Replay
                  </Button>
                ),
            },
          ]}
        />
      </div>
    </Page>
  );
}
