import { useQuery } from '@tanstack/react-query';
import { api, must } from '../../app/api';
import { DataTable, FormError, formatDate, Loading, StatusBadge } from '../../kit';

/** Who is enrolled in a journey (the latest 50): the user, their status, when they entered and left. */
export function Enrollments({ id }: { id: string }) {
  const list = useQuery({
    queryKey: ['journey-enrollments', id],
    queryFn: () =>
      must(api.GET('/api/journeys/{id}/enrollments', { params: { path: { id }, query: { limit: '50' } } })),
  });
  if (list.isPending) return <Loading />;
  if (list.isError) return <FormError error={list.error} />;
  if (list.data.data.length === 0) return <p className="muted">No one is enrolled yet.</p>;
  return (
    <div className="card">
      <DataTable
        rows={list.data.data}
        rowKey={(e) => e.id}
        columns={[
          { name: 'User', cell: (e) => e.endUser.userId ?? e.endUser.anonymousId ?? e.endUserId },
          { name: 'Status', cell: (e) => <StatusBadge status={e.status} /> },
          { name: 'Enrolled', cell: (e) => formatDate(e.enrolledAt) },
          { name: 'Ended', cell: (e) => formatDate(e.endedAt) },
        ]}
      />
    </div>
  );
}
