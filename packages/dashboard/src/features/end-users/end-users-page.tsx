import { Link } from 'react-router';
import { api, must } from '../../app/api';
import { formatDate, ListPage, SearchFilter, useListParams, usePagedQuery } from '../../kit';
import { displayName, traitText } from './end-user-name';

/**
 * End users (issue 38): everyone the SDK has seen, last seen first, searched by the start of their
 * userId, anonymous id, email or name (`GET /api/end-users`); each opens their page.
 */
export default function EndUsersPage() {
  const list = useListParams();
  const search = list.get('search');
  const users = usePagedQuery(['end-users', { search }], list.page, (paging) =>
    must(api.GET('/api/end-users', { params: { query: { ...paging, search: search || undefined } } })),
  );
  return (
    <ListPage
      title="End users"
      description="The people using your app, as the SDK has seen them: who they are, what they completed, what they would be shown."
      filters={
        <SearchFilter
          label="Search end users"
          placeholder="userId, email or name starts with…"
          value={search}
          onChange={(v) => list.setFilter({ search: v })}
        />
      }
      query={users}
      columns={[
        {
          name: 'User',
          cell: (u) => (
            <>
              <Link to={`/end-users/${u.id}`} className="row-link">
                {displayName(u)}
              </Link>
              {u.userId === null && u.anonymousId ? <div className="muted small">{u.anonymousId}</div> : null}
            </>
          ),
        },
        { name: 'Email', cell: (u) => traitText(u.traits, 'email') ?? <span className="muted">—</span> },
        { name: 'Name', cell: (u) => traitText(u.traits, 'name') ?? <span className="muted">—</span> },
        { name: 'First seen', cell: (u) => formatDate(u.firstSeenAt) },
        { name: 'Last seen', cell: (u) => formatDate(u.lastSeenAt) },
      ]}
      empty={{
        title: 'No end users yet',
        body: 'They appear once your app loads the SDK: identify() names them, events keep them seen.',
      }}
      noMatch={{
        when: Boolean(search),
        title: 'No end user matches',
        body: 'The search matches the start of a userId, an anonymous id, an email or a name.',
      }}
      pages={{ label: 'End user pages', onPage: list.setPage }}
    />
  );
}
