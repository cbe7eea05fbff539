import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ApiError, api, must, type Schemas } from '../../app/api';
import {
  Button,
  type Column,
  DataTable,
  Empty,
  Form,
  FormError,
  Loading,
  Notice,
  TextField,
} from '../../kit';
import { kindLabel } from './priority';

type Explained = Schemas['DeliveryExplanation'];
type Item = Explained['items'][number];

const editorLink = (item: Item) =>
  item.kind === 'flow'
    ? `/flows/${item.id}`
    : item.contentType === 'nps-surveys'
      ? `/content/nps/${item.id}`
      : `/content/${item.contentType}/${item.id}`;

const COLUMNS: Column<Item>[] = [
  {
    name: 'Item',
    cell: (i) => (
      <Link className="row-link" to={editorLink(i)}>
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

/** Shown items first, then the suppressed ones by reason, each group in the service's order. */
const byDecision = (items: readonly Item[]) =>
  [...items].sort((a, b) => Number(a.decision !== 'SHOWN') - Number(b.decision !== 'SHOWN'));

/**
 * "Preview as this user": an end user (its userId, or the service's id) and a URL; every flow,
 * content item and NPS survey with what a session on that page would do with it now, SHOWN or
 * SUPPRESSED, the reason code and its detail (`GET /api/end-users/:id/delivery`). Nothing is
 * written: previewing does not count against caps. The query is in the page's URL.
 */
export function Preview() {
  const [params, setParams] = useSearchParams();
  const user = params.get('user') ?? '';
  const url = params.get('url') ?? '';
  const [userInput, setUserInput] = useState(user);
  const [urlInput, setUrlInput] = useState(url);
  const explained = useQuery({
    queryKey: ['delivery-explanation', user, url, params.get('at')],
    enabled: user !== '',
    queryFn: async () =>
      (
        await must(
          api.GET('/api/end-users/{id}/delivery', {
            params: { path: { id: user }, query: { url: url || undefined } },
          }),
        )
      ).data,
  });
  const notFound = explained.error instanceof ApiError && explained.error.status === 404;
  return (
    <div className="preview-page">
      <Form
        className="card pad preview-form"
        aria-label="Preview as this user"
        onSubmit={() =>
          setParams(
            { user: userInput.trim(), url: urlInput.trim(), at: String(Date.now()) },
            { replace: true },
          )
        }
      >
        <TextField
          label="User"
          value={userInput}
          placeholder="userId, or the end user's id"
          onChange={(e) => setUserInput(e.target.value)}
        />
        <TextField
          label="Page URL"
          type="url"
          value={urlInput}
          placeholder="https://app.example.com/home"
          onChange={(e) => setUrlInput(e.target.value)}
        />
        <Button type="submit" variant="primary" className="preview-submit" disabled={userInput.trim() === ''}>
          Preview
        </Button>
      </Form>
      {user === '' ? (
        <Empty title="Preview as this user">
          Type a user's id and a page URL to see what they would be shown there now, and why not the rest.
        </Empty>
      ) : explained.isPending ? (
        <Loading />
      ) : notFound ? (
        <Notice kind="error">No such end user: {user}</Notice>
      ) : explained.isError ? (
        <FormError error={explained.error} />
      ) : (
        <div className="card">
          <p className="preview-summary muted small">
            {explained.data.items.filter((i) => i.decision === 'SHOWN').length} of{' '}
            {explained.data.items.length} shown to <strong>{user}</strong> on{' '}
            <code>{explained.data.url ?? 'no URL'}</code>
          </p>
          <DataTable
            label="What this user is shown"
            columns={COLUMNS}
            rows={byDecision(explained.data.items)}
            rowKey={(i) => `${i.kind}:${i.id}`}
            emptyRow="This workspace has no flows or content yet."
          />
        </div>
      )}
    </div>
  );
}
