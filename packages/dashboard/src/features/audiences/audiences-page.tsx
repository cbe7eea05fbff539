import { Link, useNavigate } from 'react-router';
import { api, must } from '../../app/api';
import { useCan } from '../../app/session';
import { Button, formatDate, ListPage, SearchFilter, useListParams, usePagedQuery } from '../../kit';
import { countRules } from './rule-tree';

/** Audiences: search, pages; each opens in the rule builder. */
export default function AudiencesPage() {
  const list = useListParams();
  const search = list.get('search');
  const canEdit = useCan('EDITOR');
  const navigate = useNavigate();
  const audiences = usePagedQuery(['audiences', { search }], list.page, (paging) =>
    must(api.GET('/api/audiences', { params: { query: { ...paging, search: search || undefined } } })),
  );
  const create = canEdit ? (
    <Button variant="primary" onClick={() => navigate('/audiences/new')}>
      New audience
    </Button>
  ) : null;
  return (
    <ListPage
      title="Audiences"
      description="Who sees what: rules over traits, role and device."
      actions={create}
      filters={
        <SearchFilter
          label="Search audiences"
          value={search}
          onChange={(v) => list.setFilter({ search: v })}
        />
      }
      query={audiences}
      columns={[
        {
          name: 'Name',
          cell: (a) => (
            <>
              <Link className="row-link" to={`/audiences/${a.id}`}>
                {a.name}
              </Link>
              {a.description ? <div className="muted small">{a.description}</div> : null}
            </>
          ),
        },
        { name: 'Rules', cell: (a) => countRules(a.ruleTree) },
        { name: 'Updated', cell: (a) => formatDate(a.updatedAt) },
      ]}
      empty={{
        title: 'No audiences yet',
        body: 'Group your users by plan, role, country or any trait you send, then target flows and content at them.',
        action: create,
      }}
      noMatch={{ when: Boolean(search), title: 'No audience matches', body: 'Try another search.' }}
      pages={{ label: 'Audience pages', onPage: list.setPage }}
    />
  );
}
