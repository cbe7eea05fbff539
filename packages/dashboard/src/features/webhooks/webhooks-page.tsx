import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, must } from '../../app/api';
import { Button, Empty, formatDate, ListCard, Page, StatusBadge, usePagedQuery } from '../../kit';
import { type CreatedWebhook, NewWebhookDialog, SecretShownOnce } from './new-webhook';

/** Webhooks: the endpoints (each links to its delivery log), a new endpoint with its secret shown once. */
export default function WebhooksPage() {
  const client = useQueryClient();
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedWebhook>();
  const hooks = usePagedQuery(['webhooks'], page, (paging) =>
    must(api.GET('/api/webhooks', { params: { query: paging } })),
  );
  return (
    <Page
      title="Webhooks"
      description="Signed events sent to your systems (CRM, analytics, Slack), retried for up to 3 days."
      actions={
        <Button variant="primary" onClick={() => setCreating(true)}>
          New endpoint
        </Button>
      }
    >
      <div style={{ display: 'grid', gap: 18 }}>
        {created ? <SecretShownOnce created={created} /> : null}
        <ListCard
          title="Endpoints"
          query={hooks}
          empty={
            <div className="pad">
              <Empty title="No webhook endpoints yet">
                Add an endpoint to receive events as they happen.
              </Empty>
            </div>
          }
          pages={{ label: 'Endpoint pages', onPage: setPage }}
          columns={[
            { name: 'URL', cell: (h) => <Link to={`/webhooks/${h.id}`}>{h.url}</Link> },
            { name: 'Description', cell: (h) => h.description || '—' },
            { name: 'Events', cell: (h) => h.events.join(', ') },
            {
              name: 'Status',
              cell: (h) => (
                <span title={h.disabledReason ?? undefined}>
                  <StatusBadge status={h.enabled ? 'ENABLED' : 'DISABLED'} />
                </span>
              ),
            },
            { name: 'Created', cell: (h) => formatDate(h.createdAt) },
          ]}
        />
      </div>
      <NewWebhookDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(c) => {
          setCreated(c);
          setCreating(false);
          void client.invalidateQueries({ queryKey: ['webhooks'] });
        }}
      />
    </Page>
  );
}
