import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, must, PAGE_SIZE } from '../../app/api';
import { useCan } from '../../app/session';
import { Button, Empty, FormError, formatDate, Loading, Page, Pagination, StatusBadge } from '../../kit/ui';

/** Experiments: A/B tests of flows (or a holdout) over an audience. */
export default function Experiments() {
  const [params, setParams] = useSearchParams();
  const page = Number(params.get('page') ?? '1') || 1;
  const navigate = useNavigate();
  const canEdit = useCan('EDITOR');
  const list = useQuery({
    queryKey: ['experiments', page],
    queryFn: () =>
      must(
        api.GET('/api/experiments', { params: { query: { page: String(page), limit: String(PAGE_SIZE) } } }),
      ),
    placeholderData: keepPreviousData,
  });
  const create = canEdit ? (
    <Button variant="primary" onClick={() => navigate('/experiments/new')}>
      New experiment
    </Button>
  ) : null;
  return (
    <Page
      title="Experiments"
      description="A/B test your flows: variants, splits, and what converts."
      actions={create}
    >
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <FormError error={list.error} />
      ) : list.data.data.length === 0 ? (
        <Empty title="No experiments yet" action={create}>
          Compare two versions of a flow (or a flow against none) and see which one converts.
        </Empty>
      ) : (
        <div className="card">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Variants</th>
                <th scope="col" className="num">
                  Participants
                </th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((x) => (
                <tr key={x.id}>
                  <td>
                    <Link className="row-link" to={`/experiments/${x.id}`}>
                      {x.name}
                    </Link>
                  </td>
                  <td>
                    <StatusBadge status={x.status} />
                  </td>
                  <td>{x.variants.map((v) => `${v.name} ${v.splitPercentage}%`).join(' · ')}</td>
                  <td className="num">{x._count.assignments}</td>
                  <td>{formatDate(x.startDate)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pagination
            meta={list.data.meta}
            onPage={(p) => setParams({ page: String(p) })}
            label="Experiment pages"
          />
        </div>
      )}
    </Page>
  );
}
