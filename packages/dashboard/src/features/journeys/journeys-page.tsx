import { useState } from 'react';
import { Link } from 'react-router';
import { api, must } from '../../app/api';
import { useCan } from '../../app/session';
import { Button, formatDate, ListPage, StatusBadge, useListParams, usePagedQuery } from '../../kit';
import { NewJourneyDialog } from './new-journey-dialog';

/** Journeys: multi-step lifecycles drawn on a canvas. */
export default function JourneysPage() {
  const list = useListParams();
  const canEdit = useCan('EDITOR');
  const [creating, setCreating] = useState(false);
  const journeys = usePagedQuery(['journeys'], list.page, (paging) =>
    must(api.GET('/api/journeys', { params: { query: paging } })),
  );
  const create = canEdit ? (
    <Button variant="primary" onClick={() => setCreating(true)}>
      New journey
    </Button>
  ) : null;
  return (
    <ListPage
      title="Journeys"
      description="Lifecycles across sessions: triggers, content, waits, conditions, splits and goals."
      actions={create}
      query={journeys}
      columns={[
        {
          name: 'Name',
          cell: (j) => (
            <Link className="row-link" to={`/journeys/${j.id}`}>
              {j.name}
            </Link>
          ),
        },
        { name: 'Status', cell: (j) => <StatusBadge status={j.status} /> },
        { name: 'Nodes', num: true, cell: (j) => j._count.nodes },
        { name: 'Enrollments', num: true, cell: (j) => j._count.enrollments },
        { name: 'Updated', cell: (j) => formatDate(j.updatedAt) },
      ]}
      empty={{
        title: 'No journeys yet',
        body: 'Draw a journey: what starts it, what users see, how long to wait, and the goal it works towards.',
        action: create,
      }}
      pages={{ label: 'Journey pages', onPage: list.setPage }}
    >
      <NewJourneyDialog open={creating} onClose={() => setCreating(false)} />
    </ListPage>
  );
}
