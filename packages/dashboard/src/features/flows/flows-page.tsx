import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, must, PAGE_SIZE } from '../../app/api';
import { useCan, useSiteId } from '../../app/session';
import {
  Button,
  Empty,
  FormError,
  fieldError,
  formatDate,
  Loading,
  Modal,
  Page,
  Pagination,
  SelectField,
  StatusBadge,
  Tabs,
  TextField,
} from '../../kit/ui';

export const TEMPLATES = [
  'PRODUCT_TOUR',
  'FEATURE_WALKTHROUGH',
  'INTERACTIVE_DEMO',
  'ANNOUNCEMENT_SEQUENCE',
  'CUSTOM',
] as const;
const STATUS_TABS = [
  { value: '', label: 'All' },
  { value: 'DRAFT', label: 'Drafts' },
  { value: 'PUBLISHED', label: 'Published' },
  { value: 'SCHEDULED', label: 'Scheduled' },
  { value: 'ARCHIVED', label: 'Archived' },
] as const;
type StatusFilter = (typeof STATUS_TABS)[number]['value'];

export const label = (s: string) => s.charAt(0) + s.slice(1).toLowerCase().replace(/_/g, ' ');

/** Flows: status filters, search, pages; a new flow starts as a draft and opens in the editor. */
export default function FlowsList() {
  const [params, setParams] = useSearchParams();
  const status = (params.get('status') ?? '') as StatusFilter;
  const search = params.get('search') ?? '';
  const page = Number(params.get('page') ?? '1') || 1;
  const canEdit = useCan('EDITOR');
  const [creating, setCreating] = useState(false);
  const update = (next: Record<string, string>) => {
    const merged = new URLSearchParams(params);
    for (const [k, v] of Object.entries(next)) v ? merged.set(k, v) : merged.delete(k);
    setParams(merged, { replace: true });
  };
  const flows = useQuery({
    queryKey: ['flows', { status, search, page }],
    queryFn: () =>
      must(
        api.GET('/api/flows', {
          params: {
            query: {
              page: String(page),
              limit: String(PAGE_SIZE),
              status: status || undefined,
              search: search || undefined,
            },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  return (
    <Page
      title="Flows"
      description="Product tours and walkthroughs shown in your app."
      actions={
        canEdit ? (
          <Button variant="primary" onClick={() => setCreating(true)}>
            New flow
          </Button>
        ) : null
      }
    >
      <div className="toolbar">
        <Tabs
          label="Status"
          tabs={STATUS_TABS}
          value={status}
          onChange={(v) => update({ status: v, page: '' })}
        />
        <input
          type="search"
          className="search"
          aria-label="Search flows"
          placeholder="Search by name"
          defaultValue={search}
          onChange={(e) => update({ search: e.target.value, page: '' })}
        />
      </div>
      {flows.isPending ? (
        <Loading />
      ) : flows.isError ? (
        <FormError error={flows.error} />
      ) : flows.data.data.length === 0 ? (
        <Empty
          title={search || status ? 'No flow matches' : 'No flows yet'}
          action={
            canEdit && !search && !status ? (
              <Button variant="primary" onClick={() => setCreating(true)}>
                New flow
              </Button>
            ) : null
          }
        >
          {search || status
            ? 'Try another filter or search.'
            : 'Create your first product tour: a few steps, a target audience, publish.'}
        </Empty>
      ) : (
        <div className="card">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Template</th>
                <th scope="col">Steps</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {flows.data.data.map((f) => (
                <tr key={f.id}>
                  <td>
                    <Link to={`/flows/${f.id}`} className="row-link">
                      {f.name}
                    </Link>
                    {f.description ? <div className="muted small">{f.description}</div> : null}
                  </td>
                  <td>
                    <StatusBadge status={f.status} />
                  </td>
                  <td>{label(f.template)}</td>
                  <td>{f._count.steps}</td>
                  <td>{formatDate(f.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pagination meta={flows.data.meta} onPage={(p) => update({ page: String(p) })} label="Flow pages" />
        </div>
      )}
      <NewFlow open={creating} onClose={() => setCreating(false)} />
    </Page>
  );
}

function NewFlow({ open, onClose }: { open: boolean; onClose(): void }) {
  const siteId = useSiteId();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [template, setTemplate] = useState<(typeof TEMPLATES)[number]>('PRODUCT_TOUR');
  const create = useMutation({
    mutationFn: () => must(api.POST('/api/flows', { body: { name, template, siteId } })),
    onSuccess: (res) => navigate(`/flows/${res.data.id}`),
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <Modal open={open} title="New flow" onClose={onClose}>
      <form onSubmit={onSubmit} className="modal-body" noValidate>
        <TextField
          label="Name"
          required
          autoFocus
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fieldError(create.error, 'name')}
        />
        <SelectField
          label="Template"
          value={template}
          onChange={(e) => setTemplate(e.target.value as typeof template)}
          options={TEMPLATES.map((t) => ({ value: t, label: label(t) }))}
          error={fieldError(create.error, 'template')}
        />
        <FormError error={create.error} claimed={['name', 'template']} />
        <div className="modal-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={create.isPending}>
            Create flow
          </Button>
        </div>
      </form>
    </Modal>
  );
}
