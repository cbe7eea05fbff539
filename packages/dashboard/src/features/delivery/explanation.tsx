import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ApiError, api, must, type Schemas } from '../../app/api';
import { type Column, DataTable, FormError, Loading, Notice } from '../../kit';
import { kindLabel } from './priority';

type Explained = Schemas['DeliveryExplanation'];
type Item = Explained['items'][number];

/** The editor of a flow, content item or NPS survey (`contentType`: the content type slug). */
export const editorPath = (item: { kind: 'flow' | 'content'; id: string; contentType: string | null }) =>
  item.kind === 'flow'
    ? `/flows/${item.id}`
    : item.contentType === 'nps-surveys'
      ? `/content/nps/${item.id}`
      : `/content/${item.contentType}/${item.id}`;

const COLUMNS: Column<Item>[] = [
  {
    name: 'Item',
    cell: (i) => (
      <Link className="row-link" to={editorPath(i)}>
        {i.name}
      </Link>
    ),
  },
  { name: 'Kind', cell: kindLabel },
  {
    name: 'Decision',
    cell: (i) => (
      <span className={`badge badge-${i.decision === 'SHOWN' ? 'published' : 'archived'}`}>
        {i.decision === 'SHOWN' ? 'shown' : 'suppressed'}
      </span>
    ),
  },
  { name: 'Reason', cell: (i) => (i.reason ? <code>{i.reason}</code> : <span className="muted">—</span>) },
  { name: 'Detail', cell: (i) => i.detail ?? <span className="muted">—</span> },
];

/** Shown items first, then the suppressed ones, each group in the service's order. */
const byDecision = (items: readonly Item[]) =>
  [...items].sort((a, b) => Number(a.decision !== 'SHOWN') - Number(b.decision !== 'SHOWN'));

/**
 * What a session of end user `user` (its userId, or the service's id) on `url` would be served
 * now: every flow, content item and NPS survey, SHOWN or SUPPRESSED with its reason code and
 * detail (`GET /api/end-users/:id/delivery`; nothing written, previews count against no cap).
 * `at` asks again (a new Preview of the same user and URL). Used by the Delivery page's preview
 * and the end-user page.
 */
export function DeliveryExplanation({
  user,
  url,
  at,
  name = user,
}: {
  user: string;
  url: string;
  at?: string | null;
  /** How the summary names the user (the end-user page: their userId rather than the service id). */
  name?: string;
}) {
  const explained = useQuery({
    queryKey: ['delivery-explanation', user, url, at ?? null],
    queryFn: async () =>
      (
        await must(
          api.GET('/api/end-users/{id}/delivery', {
            params: { path: { id: user }, query: { url: url || undefined } },
          }),
        )
      ).data,
  });
  if (explained.isPending) return <Loading />;
  if (explained.error instanceof ApiError && explained.error.status === 404)
    return <Notice kind="error">No such end user: {user}</Notice>;
  if (explained.isError) return <FormError error={explained.error} />;
  const { items } = explained.data;
  return (
    <div className="card">
      <p className="preview-summary muted small">
        {items.filter((i) => i.decision === 'SHOWN').length} of {items.length} shown to{' '}
        <strong>{name}</strong> on <code>{explained.data.url ?? 'no URL'}</code>
      </p>
      <DataTable
        label="What this user is shown"
        columns={COLUMNS}
        rows={byDecision(items)}
        rowKey={(i) => `${i.kind}:${i.id}`}
        emptyRow="This workspace has no flows or content yet."
      />
    </div>
  );
}
