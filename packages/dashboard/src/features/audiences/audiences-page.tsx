import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, must, PAGE_SIZE } from '../../app/api';
import { useCan } from '../../app/session';
import { Button, Empty, FormError, formatDate, Loading, Page, Pagination } from '../../kit/ui';
import { countRules } from './rule-builder';

/** Audiences: search, pages; each opens in the rule builder. */
export default function Audiences() {
  const [params, setParams] = useSearchParams();
  const search = params.get('search') ?? '';
  const page = Number(params.get('page') ?? '1') || 1;
  const canEdit = useCan('EDITOR');
  const navigate = useNavigate();
  const list = useQuery({
    queryKey: ['audiences', { search, page }],
    queryFn: () =>
      must(
        api.GET('/api/audiences', {
          params: { query: { page: String(page), limit: String(PAGE_SIZE), search: search || undefined } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const create = canEdit ? (
    <Button variant="primary" onClick={() => navigate('/audiences/new')}>
      New audience
    </Button>
  ) : null;
  return (
    <Page title="Audiences" description="Who sees what: rules over traits, role and device." actions={create}>
      <div className="toolbar">
        <input
          type="search"
          className="search"
          aria-label="Search audiences"
          placeholder="Search by name"
          defaultValue={search}
          onChange={(e) => setParams(e.target.value ? { search: e.target.value } : {}, { replace: true })}
        />
      </div>
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <FormError error={list.error} />
      ) : list.data.data.length === 0 ? (
        <Empty title={search ? 'No audience matches' : 'No audiences yet'} action={search ? null : create}>
          {search
            ? 'Try another search.'
            : 'Group your users by plan, role, country or any trait you send, then target flows and content at them.'}
        </Empty>
      ) : (
        <div className="card">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Rules</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((a) => (
                <tr key={a.id}>
                  <td>
                    <Link className="row-link" to={`/audiences/${a.id}`}>
                      {a.name}
                    </Link>
                    {a.description ? <div className="muted small">{a.description}</div> : null}
                  </td>
                  <td>{countRules(a.ruleTree)}</td>
                  <td>{formatDate(a.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pagination
            meta={list.data.meta}
            onPage={(p) => setParams({ ...(search ? { search } : {}), page: String(p) })}
            label="Audience pages"
          />
        </div>
      )}
    </Page>
  );
}
