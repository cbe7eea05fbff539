import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, must, PAGE_SIZE } from '../../app/api';
import { useCan, useSiteId } from '../../app/session';
import {
  Button,
  Empty,
  FormError,
  fieldError,
  formatDate,
  Loading,
  Modal,
  Page,
  Pagination,
  StatusBadge,
  TextField,
} from '../../kit/ui';

/** Journeys: multi-step lifecycles drawn on a canvas. */
export default function Journeys() {
  const [params, setParams] = useSearchParams();
  const page = Number(params.get('page') ?? '1') || 1;
  const canEdit = useCan('EDITOR');
  const [creating, setCreating] = useState(false);
  const list = useQuery({
    queryKey: ['journeys', page],
    queryFn: () =>
      must(api.GET('/api/journeys', { params: { query: { page: String(page), limit: String(PAGE_SIZE) } } })),
    placeholderData: keepPreviousData,
  });
  const create = canEdit ? (
    <Button variant="primary" onClick={() => setCreating(true)}>
      New journey
    </Button>
  ) : null;
  return (
    <Page
      title="Journeys"
      description="Lifecycles across sessions: triggers, content, waits, conditions, splits and goals."
      actions={create}
    >
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <FormError error={list.error} />
      ) : list.data.data.length === 0 ? (
        <Empty title="No journeys yet" action={create}>
          Draw a journey: what starts it, what users see, how long to wait, and the goal it works towards.
        </Empty>
      ) : (
        <div className="card">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Nodes
                </th>
                <th scope="col" className="num">
                  Enrollments
                </th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((j) => (
                <tr key={j.id}>
                  <td>
                    <Link className="row-link" to={`/journeys/${j.id}`}>
                      {j.name}
                    </Link>
                  </td>
                  <td>
                    <StatusBadge status={j.status} />
                  </td>
                  <td className="num">{j._count.nodes}</td>
                  <td className="num">{j._count.enrollments}</td>
                  <td>{formatDate(j.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pagination
            meta={list.data.meta}
            onPage={(p) => setParams({ page: String(p) })}
            label="Journey pages"
          />
        </div>
      )}
      <NewJourney open={creating} onClose={() => setCreating(false)} />
    </Page>
  );
}

function NewJourney({ open, onClose }: { open: boolean; onClose(): void }) {
  const siteId = useSiteId();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () => must(api.POST('/api/journeys', { body: { name, siteId } })),
    onSuccess: (res) => navigate(`/journeys/${res.data.id}`),
  });
  return (
    <Modal open={open} title="New journey" onClose={onClose}>
      <form
        className="modal-body"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <TextField
          label="Name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fieldError(create.error, 'name')}
          autoFocus
        />
        <FormError error={create.error} claimed={['name']} />
        <div className="modal-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={create.isPending}>
            Create journey
          </Button>
        </div>
      </form>
    </Modal>
  );
}
