import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { Schemas } from '../../app/api';
import { type Column, DataTable, formatDate } from '../../kit';
import { editorPath } from '../delivery';
import { valueText } from './end-user-name';

type EndUser = Schemas['EndUserDetail'];
type ItemState = EndUser['itemStates'][number];

/** Who the end user is: their ids and every trait, as stored. */
export function Profile({ user }: { user: EndUser }) {
  const traits = Object.entries(user.traits);
  const facts: [string, ReactNode][] = [
    [
      'userId',
      user.userId ? (
        <code key="u">{user.userId}</code>
      ) : (
        <span key="u" className="muted">
          anonymous
        </span>
      ),
    ],
    ...(user.anonymousId
      ? [['Anonymous id', <code key="a">{user.anonymousId}</code>] as [string, ReactNode]]
      : []),
    ['Service id', <code key="s">{user.id}</code>],
    ['First seen', formatDate(user.firstSeenAt)],
    ['Last seen', formatDate(user.lastSeenAt)],
    ...traits.map(([key, value]): [string, ReactNode] => [key, valueText(value)]),
  ];
  return (
    <section className="card" aria-labelledby="end-user-profile">
      <header className="card-header">
        <h2 className="card-title" id="end-user-profile">
          Profile
        </h2>
      </header>
      <dl className="facts">
        {facts.map(([key, value]) => (
          <div key={key} className="facts-row">
            <dt>{key}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {traits.length === 0 ? <p className="muted small pad">No traits: identify() sends them.</p> : null}
    </section>
  );
}

const COLUMNS: Column<ItemState>[] = [
  {
    name: 'Item',
    cell: (s) =>
      s.kind && s.name !== null ? (
        <Link
          className="row-link"
          to={editorPath({ kind: s.kind, id: s.itemId, contentType: s.contentType })}
        >
          {s.name}
        </Link>
      ) : (
        <span className="muted">Deleted item</span>
      ),
  },
  { name: 'Completed', cell: (s) => (s.completedAt ? formatDate(s.completedAt) : '—') },
  { name: 'Dismissed', cell: (s) => (s.dismissedAt ? formatDate(s.dismissedAt) : '—') },
];

/** What the frequency cap remembers of them: the items they completed or dismissed. */
export function ItemStates({ states }: { states: EndUser['itemStates'] }) {
  return (
    <section className="card" aria-labelledby="end-user-items">
      <header className="card-header">
        <h2 className="card-title" id="end-user-items">
          Completed and dismissed
        </h2>
      </header>
      <DataTable
        label="Completed and dismissed items"
        columns={COLUMNS}
        rows={states}
        rowKey={(s) => s.itemId}
        emptyRow="Nothing completed or dismissed yet."
      />
    </section>
  );
}
