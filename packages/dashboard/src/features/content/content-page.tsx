import { Link, useNavigate, useParams } from 'react-router';
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
import { isTargetedContent } from '../targeting';
import { CONTENT_TYPES, collectionPath, contentTypeOf } from './content-types';

const STATUSES = ['', 'DRAFT', 'PUBLISHED', 'SCHEDULED', 'ARCHIVED'] as const;

/** Content: one tab per type, a status filter, search, pages. */
export default function ContentPage() {
  const meta = contentTypeOf(useParams().type);
  const list = useListParams();
  const status = list.get('status');
  const search = list.get('search');
  const navigate = useNavigate();
  const canEdit = useCan('EDITOR');
  const items = usePagedQuery(['content', meta.value, { status, search }], list.page, (paging) =>
    must(
      api.GET(collectionPath(meta.value) as '/api/content/tooltips', {
        params: {
          query: {
            ...paging,
            status: (status || undefined) as 'DRAFT' | undefined,
            search: search || undefined,
          },
        },
      }),
    ),
  );
  const create = canEdit ? (
    <Button variant="primary" onClick={() => navigate(`/content/${meta.value}/new`)}>
      New {meta.one}
    </Button>
  ) : null;
  const plural = meta.label.toLowerCase();
  return (
    <ListPage
      title="Content"
      description="Tooltips, beacons, task lists, surveys, announcements, self-help and NPS."
      actions={
        <>
          {/* Tooltips and beacons point at elements of the customer's pages (issue 40). */}
          {isTargetedContent(meta.value) ? (
            <Link className="btn btn-secondary" to="/flows/needs-attention">
              Needs attention
            </Link>
          ) : null}
          {create}
        </>
      }
      above={
        <Tabs
          label="Content type"
          tabs={CONTENT_TYPES}
          value={meta.value}
          onChange={(v) => navigate(`/content/${v}`)}
        />
      }
      filters={
        <>
          <select
            aria-label="Status"
            value={status}
            onChange={(e) => list.setFilter({ status: e.target.value })}
            style={{ width: 180 }}
          >
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s ? humanize(s) : 'Any status'}
              </option>
            ))}
          </select>
          <SearchFilter
            label={`Search ${plural}`}
            value={search}
            onChange={(v) => list.setFilter({ search: v })}
          />
        </>
      }
      query={items}
      columns={[
        {
          name: 'Name',
          cell: (item) => (
            <Link className="row-link" to={`/content/${meta.value}/${item.id}`}>
              {item.name}
            </Link>
          ),
        },
        { name: 'Status', cell: (item) => <StatusBadge status={item.status} /> },
        { name: 'Updated', cell: (item) => formatDate(item.updatedAt) },
      ]}
      empty={{
        title: `No ${plural} yet`,
        body: `Create a ${meta.one} and publish it to show it in your app.`,
        action: create,
      }}
      noMatch={{ when: Boolean(search || status), title: `No ${plural} match`, body: 'Try another filter.' }}
      pages={{ label: `${meta.label} pages`, onPage: list.setPage }}
    />
  );
}
