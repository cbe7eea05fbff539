import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, must } from '../../app/api';
import { useCan } from '../../app/session';
import { Button, Empty, formatDate, ListCard, StatusBadge, usePagedQuery } from '../../kit';
import { type CreatedKey, NewApiKeyDialog, NewKeyShownOnce } from './new-api-key';

/** API keys: the list (revoke), a new key shown once with its install snippet. */
export function ApiKeys() {
  const client = useQueryClient();
  const canAdmin = useCan('ADMIN');
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedKey>();
  const keys = usePagedQuery(['api-keys'], page, (paging) =>
    must(api.GET('/api/tenants/api-keys', { params: { query: paging } })),
  );
  const revoke = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/api/tenants/api-keys/{id}', { params: { path: { id } } })),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['api-keys'] }),
  });
  return (
    <div style={{ display: 'grid', gap: 18 }}>
      {created ? <NewKeyShownOnce created={created} /> : null}
      <ListCard
        title="API keys"
        actions={
          canAdmin ? (
            <Button variant="primary" onClick={() => setCreating(true)}>
              New API key
            </Button>
          ) : null
        }
        error={revoke.error}
        query={keys}
        empty={
          <div className="pad">
            <Empty title="No API keys yet">Create a key to install the SDK in your app.</Empty>
          </div>
        }
        pages={{ label: 'API key pages', onPage: setPage }}
        columns={[
          { name: 'Name', cell: (k) => k.name },
          { name: 'Key', cell: (k) => <code>{k.keyPrefix}…</code> },
          { name: 'Created', cell: (k) => formatDate(k.createdAt) },
          { name: 'Last used', cell: (k) => formatDate(k.lastUsedAt) },
          { name: 'Expires', cell: (k) => (k.expiresAt ? formatDate(k.expiresAt) : 'Never') },
          {
            name: 'Actions',
            header: <span className="sr-only">Actions</span>,
            cellStyle: { textAlign: 'right' },
            cell: (k) =>
              k.revokedAt ? (
                <StatusBadge status="REVOKED" />
              ) : canAdmin ? (
                <Button variant="danger" onClick={() => revoke.mutate(k.id)} aria-label={`Revoke ${k.name}`}>
                  Revoke
                </Button>
              ) : null,
          },
        ]}
      />
      <NewApiKeyDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(key) => {
          setCreated(key);
          setCreating(false);
          void client.invalidateQueries({ queryKey: ['api-keys'] });
        }}
      />
    </div>
  );
}
