import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { api, must, PAGE_SIZE } from '../../app/api';
import { useCan } from '../../app/session';
import {
  Button,
  Empty,
  FormError,
  formatDate,
  Loading,
  Page,
  Pagination,
  StatusBadge,
  Tabs,
} from '../../kit/ui';

/** The six content types of /api/content/:type, and NPS surveys (their own resource). */
export const CONTENT_TYPES = [
  { value: 'tooltips', label: 'Tooltips', one: 'tooltip' },
  { value: 'beacons', label: 'Beacons', one: 'beacon' },
  { value: 'task-lists', label: 'Task lists', one: 'task list' },
  { value: 'surveys', label: 'Surveys', one: 'survey' },
  { value: 'announcements', label: 'Announcements', one: 'announcement' },
  { value: 'self-help', label: 'Self-help', one: 'self-help widget' },
  { value: 'nps', label: 'NPS', one: 'NPS survey' },
] as const;
export type ContentType = (typeof CONTENT_TYPES)[number]['value'];

/** The API path of a content type's collection (NPS is a sibling resource). */
export const collectionPath = (type: ContentType) =>
  type === 'nps' ? '/api/nps-surveys' : `/api/content/${type}`;

const STATUSES = ['', 'DRAFT', 'PUBLISHED', 'SCHEDULED', 'ARCHIVED'] as const;

export default function Content() {
  const { type = 'tooltips' } = useParams();
  const meta = CONTENT_TYPES.find((t) => t.value === type) ?? CONTENT_TYPES[0];
  const [params, setParams] = useSearchParams();
  const status = params.get('status') ?? '';
  const search = params.get('search') ?? '';
  const page = Number(params.get('page') ?? '1') || 1;
  const navigate = useNavigate();
  const canEdit = useCan('EDITOR');
  const update = (next: Record<string, string>) => {
    const merged = new URLSearchParams(params);
    for (const [k, v] of Object.entries(next)) v ? merged.set(k, v) : merged.delete(k);
    setParams(merged, { replace: true });
  };
  const list = useQuery({
    queryKey: ['content', meta.value, { status, search, page }],
    queryFn: () =>
      must(
        api.GET(collectionPath(meta.value) as '/api/content/tooltips', {
          params: {
            query: {
              page: String(page),
              limit: String(PAGE_SIZE),
              status: (status || undefined) as 'DRAFT' | undefined,
              search: search || undefined,
            },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const create = canEdit ? (
    <Button variant="primary" onClick={() => navigate(`/content/${meta.value}/new`)}>
      New {meta.one}
    </Button>
  ) : null;
  return (
    <Page
      title="Content"
      description="Tooltips, beacons, task lists, surveys, announcements, self-help and NPS."
      actions={create}
    >
      <Tabs
        label="Content type"
        tabs={CONTENT_TYPES}
        value={meta.value}
        onChange={(v) => navigate(`/content/${v}`)}
      />
      <div className="toolbar">
        <select
          aria-label="Status"
          value={status}
          onChange={(e) => update({ status: e.target.value, page: '' })}
          style={{ width: 180 }}
        >
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s ? s.charAt(0) + s.slice(1).toLowerCase() : 'Any status'}
            </option>
          ))}
        </select>
        <input
          type="search"
          className="search"
          aria-label={`Search ${meta.label.toLowerCase()}`}
          placeholder="Search by name"
          defaultValue={search}
          onChange={(e) => update({ search: e.target.value, page: '' })}
        />
      </div>
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <FormError error={list.error} />
      ) : list.data.data.length === 0 ? (
        <Empty
          title={
            search || status ? `No ${meta.label.toLowerCase()} match` : `No ${meta.label.toLowerCase()} yet`
          }
          action={search || status ? null : create}
        >
          {search || status
            ? 'Try another filter.'
            : `Create a ${meta.one} and publish it to show it in your app.`}
        </Empty>
      ) : (
        <div className="card">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((item) => (
                <tr key={item.id}>
                  <td>
                    <Link className="row-link" to={`/content/${meta.value}/${item.id}`}>
                      {item.name}
                    </Link>
                  </td>
                  <td>
                    <StatusBadge status={item.status} />
                  </td>
                  <td>{formatDate(item.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pagination
            meta={list.data.meta}
            onPage={(p) => update({ page: String(p) })}
            label={`${meta.label} pages`}
          />
        </div>
      )}
    </Page>
  );
}
