import { Link, useNavigate } from 'react-router';
import { api, must } from '../../app/api';
import { useCan } from '../../app/session';
import { Button, formatDate, ListPage, StatusBadge, useListParams, usePagedQuery } from '../../kit';

/** Experiments: A/B tests of flows (or a holdout) over an audience. */
export default function ExperimentsPage() {
  const list = useListParams();
  const navigate = useNavigate();
  const canEdit = useCan('EDITOR');
  const experiments = usePagedQuery(['experiments'], list.page, (paging) =>
    must(api.GET('/api/experiments', { params: { query: paging } })),
  );
  const create = canEdit ? (
    <Button variant="primary" onClick={() => navigate('/experiments/new')}>
      New experiment
    </Button>
  ) : null;
  return (
    <ListPage
      title="Experiments"
      description="A/B test your flows: variants, splits, and what converts."
      actions={create}
      query={experiments}
      columns={[
        {
          name: 'Name',
          cell: (x) => (
            <Link className="row-link" to={`/experiments/${x.id}`}>
              {x.name}
            </Link>
          ),
        },
        { name: 'Status', cell: (x) => <StatusBadge status={x.status} /> },
        {
          name: 'Variants',
          cell: (x) => x.variants.map((v) => `${v.name} ${v.splitPercentage}%`).join(' · '),
        },
        { name: 'Participants', num: true, cell: (x) => x._count.assignments },
        { name: 'Started', cell: (x) => formatDate(x.startDate) },
      ]}
      empty={{
        title: 'No experiments yet',
        body: 'Compare two versions of a flow (or a flow against none) and see which one converts.',
        action: create,
      }}
      pages={{ label: 'Experiment pages', onPage: list.setPage }}
    />
  );
}
