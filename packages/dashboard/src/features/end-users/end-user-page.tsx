import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { ApiError, api, must } from '../../app/api';
import { Crumb, Empty, FormError, Loading, Page } from '../../kit';
import { ItemStates, Profile } from './end-user-details';
import { displayName, traitText } from './end-user-name';
import { PrivacyActions } from './privacy-actions';
import { UserPreview } from './user-preview';

/**
 * One end user (`GET /api/end-users/:id`, by service id or userId): who they are (traits, first and
 * last seen), what they completed or dismissed, "Preview as this user" on any URL, and for owners
 * and admins their data's export and deletion (docs/end-users.md).
 */
export default function EndUserPage() {
  const { id = '' } = useParams();
  const user = useQuery({
    queryKey: ['end-user', id],
    queryFn: async () => (await must(api.GET('/api/end-users/{id}', { params: { path: { id } } }))).data,
  });
  if (user.isPending) return <Loading />;
  if (user.isError)
    return (
      <Page
        title={
          <Crumb to="/end-users" list="End users">
            {id}
          </Crumb>
        }
      >
        {user.error instanceof ApiError && user.error.status === 404 ? (
          <Empty title="No such end user">Another workspace's, erased, or never seen by the SDK.</Empty>
        ) : (
          <FormError error={user.error} />
        )}
      </Page>
    );
  const u = user.data;
  return (
    <Page
      title={
        <Crumb to="/end-users" list="End users">
          {displayName(u)}
        </Crumb>
      }
      description={
        [traitText(u.traits, 'name'), traitText(u.traits, 'email')].filter(Boolean).join(' · ') || undefined
      }
      actions={u.userId ? <PrivacyActions userId={u.userId} /> : null}
    >
      <div className="grid-2 end-user-grid">
        <Profile user={u} />
        <ItemStates states={u.itemStates} />
      </div>
      <UserPreview endUserId={u.id} name={displayName(u)} />
    </Page>
  );
}
