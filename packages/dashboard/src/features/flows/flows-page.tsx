import { useState } from 'react';
import { Link } from 'react-router';
import { api, must } from '../../app/api';
import { useCan } from '../../app/session';
import {
  Button,
  formatDate,
  humanize,
  ListPage,
  SearchFilter,
  StatusBadge,
  Tabs,
  useListParams,
  usePagedQuery,
} from '../../kit';
import { NewFlowDialog } from './new-flow-dialog';

const STATUS_TABS = [
  { value: '', label: 'All' },
  { value: 'DRAFT', label: 'Drafts' },
  { value: 'PUBLISHED', label: 'Published' },
  { value: 'SCHEDULED', label: 'Scheduled' },
  { value: 'ARCHIVED', label: 'Archived' },
] as const;
type StatusFilter = (typeof STATUS_TABS)[number]['value'];

/** Flows: status filters, search, pages; a new flow starts as a draft and opens in the editor. */
export default function FlowsPage() {
  const list = useListParams();
  const status = list.get('status') as StatusFilter;
  const search = list.get('search');
  const canEdit = useCan('EDITOR');
  const [creating, setCreating] = useState(false);
  const flows = usePagedQuery(['flows', { status, search }], list.page, (paging) =>
    must(
      api.GET('/api/flows', {
        params: { query: { ...paging, status: status || undefined, search: search || undefined } },
      }),
    ),
  );
  const create = (
    <>
      <Link className="btn btn-secondary" to="/flows/needs-attention">
        Needs attention
      </Link>
      {canEdit ? (
        <Button variant="primary" onClick={() => setCreating(true)}>
          New flow
        </Button>
      ) : null}
    </>
  );
  return (
    <ListPage
      title="Flows"
      description="Product tours and walkthroughs shown in your app."
      actions={create}
      filters={
        <>
          <Tabs
            label="Status"
            tabs={STATUS_TABS}
            value={status}
            onChange={(v) => list.setFilter({ status: v })}
          />
          <SearchFilter label="Search flows" value={search} onChange={(v) => list.setFilter({ search: v })} />
        </>
      }
      query={flows}
      columns={[
        {
          name: 'Name',
          cell: (f) => (
            <>
              <Link to={`/flows/${f.id}`} className="row-link">
                {f.name}
              </Link>
              {f.description ? <div className="muted small">{f.description}</div> : null}
            </>
          ),
        },
        { name: 'Status', cell: (f) => <StatusBadge status={f.status} /> },
        { name: 'Template', cell: (f) => humanize(f.template) },
        { name: 'Steps', cell: (f) => f._count.steps },
        { name: 'Updated', cell: (f) => formatDate(f.updatedAt) },
      ]}
      empty={{
        title: 'No flows yet',
        body: 'Create your first product tour: a few steps, a target audience, publish.',
        action: create,
      }}
      noMatch={{
        when: Boolean(search || status),
        title: 'No flow matches',
        body: 'Try another filter or search.',
      }}
      pages={{ label: 'Flow pages', onPage: list.setPage }}
    >
      <NewFlowDialog open={creating} onClose={() => setCreating(false)} />
    </ListPage>
  );
}
