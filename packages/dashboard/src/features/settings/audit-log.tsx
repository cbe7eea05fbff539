import { useState } from 'react';
import { api, must } from '../../app/api';
import { formatDate, ListCard, usePagedQuery } from '../../kit';

/** The audit log: who did what to which record, newest first, filtered by action. */
export function AuditLog() {
  const [page, setPage] = useState(1);
  const [action, setAction] = useState('');
  const logs = usePagedQuery(['audit', action], page, (paging) =>
    must(
      api.GET('/api/tenants/audit-logs', { params: { query: { ...paging, action: action || undefined } } }),
    ),
  );
  return (
    <ListCard
      title="Audit log"
      actions={
        <input
          type="search"
          aria-label="Filter by action"
          placeholder="Action, e.g. FLOW_PUBLISHED"
          value={action}
          onChange={(e) => {
            setPage(1);
            setAction(e.target.value.toUpperCase());
          }}
          style={{ maxWidth: 280 }}
        />
      }
      query={logs}
      empty={<p className="pad muted">No entries.</p>}
      pages={{ label: 'Audit log pages', onPage: setPage }}
      columns={[
        { name: 'When', cell: (l) => formatDate(l.createdAt) },
        { name: 'Action', cell: (l) => <code>{l.action}</code> },
        {
          name: 'Entity',
          cell: (l) => (
            <>
              {l.entityType}
              {l.entityId ? <span className="muted small"> {l.entityId.slice(0, 8)}</span> : null}
            </>
          ),
        },
        {
          name: 'Actor',
          cellClass: 'muted small',
          cell: (l) => (l.actorId ? l.actorId.slice(0, 8) : 'system'),
        },
      ]}
    />
  );
}
