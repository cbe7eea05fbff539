import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router';
import { api, must } from '../../app/api';
import { useCan } from '../../app/session';
import { Button, Crumb, FormError, Loading, Notice, Page, StatusBadge, Tabs } from '../../kit';
import { ItemVersions, PublishButton, useVersionUi, VersionBadges, type VersionTarget } from '../versions';
import type { Flow } from './flow-model';
import { FlowSettings } from './flow-settings';
import { StepsEditor } from './steps-editor';

type Action = 'archive' | 'restore';
const DONE: Record<Action, string> = { archive: 'archived', restore: 'restored' };

/** The flow editor: steps (drag to reorder), each step's form with a live SDK preview, targeting, trigger, schedule, lifecycle. */
export default function FlowEditorPage() {
  const { id = '' } = useParams();
  const client = useQueryClient();
  const canEdit = useCan('EDITOR');
  const [tab, setTab] = useState<'steps' | 'targeting'>('steps');
  const versions = useVersionUi();
  const target: VersionTarget = { base: '/api/flows', id, noun: 'flow', itemKeys: [['flow', id], ['flows']] };
  const flow = useQuery({
    queryKey: ['flow', id],
    queryFn: async () => (await must(api.GET('/api/flows/{id}', { params: { path: { id } } }))).data,
  });
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ['flow', id] });
    void client.invalidateQueries({ queryKey: ['flows'] });
  };
  const transition = useMutation({
    mutationFn: async (action: Action) => {
      const path = { params: { path: { id } } };
      if (action === 'archive') return must(api.POST('/api/flows/{id}/archive', path));
      return must(api.POST('/api/flows/{id}/restore', path));
    },
    onSuccess: () => {
      versions.setPublished(undefined);
      refresh();
    },
  });
  if (flow.isPending) return <Loading />;
  if (flow.isError) return <FormError error={flow.error} />;
  const f = flow.data;
  return (
    <Page
      title={
        <Crumb to="/flows" list="Flows">
          {f.name} <StatusBadge status={f.status} />{' '}
          <VersionBadges version={f.version} hasUnpublishedChanges={f.hasUnpublishedChanges} />
        </Crumb>
      }
      actions={
        <>
          <Button onClick={() => versions.setHistory(true)}>History</Button>
          {canEdit ? (
            <FlowActions
              flow={f}
              target={target}
              busy={transition.isPending}
              onAction={transition.mutate}
              onPublished={(v) => {
                transition.reset();
                versions.setPublished(v);
              }}
            />
          ) : null}
        </>
      }
    >
      <ItemVersions
        target={target}
        ui={versions}
        hasUnpublishedChanges={f.hasUnpublishedChanges}
        canEdit={canEdit}
      />
      {transition.isSuccess ? <Notice kind="success">Flow {DONE[transition.variables]}.</Notice> : null}
      <FormError error={transition.error} />
      {!canEdit ? <Notice>You have view-only access: ask an editor or admin to make changes.</Notice> : null}
      <Tabs<'steps' | 'targeting'>
        label="Flow sections"
        tabs={[
          { value: 'steps', label: `Steps (${f.steps.length})` },
          { value: 'targeting', label: 'Targeting & schedule' },
        ]}
        value={tab}
        onChange={setTab}
      />
      {tab === 'steps' ? (
        <StepsEditor key={versions.restored} flow={f} canEdit={canEdit} onChange={refresh} />
      ) : (
        <FlowSettings key={versions.restored} flow={f} canEdit={canEdit} onSaved={refresh} />
      )}
    </Page>
  );
}

/** Archive or restore, and publish a draft, or a published flow's unpublished changes. */
function FlowActions({
  flow,
  target,
  busy,
  onAction,
  onPublished,
}: {
  flow: Flow;
  target: VersionTarget;
  busy: boolean;
  onAction(action: Action): void;
  onPublished(version: number | null | undefined): void;
}) {
  const publishable =
    (flow.status !== 'PUBLISHED' && flow.status !== 'ARCHIVED') ||
    (flow.status === 'PUBLISHED' && flow.hasUnpublishedChanges);
  return (
    <>
      {flow.status === 'ARCHIVED' ? (
        <Button onClick={() => onAction('restore')} busy={busy}>
          Restore
        </Button>
      ) : (
        <Button variant="danger" onClick={() => onAction('archive')} busy={busy}>
          Archive
        </Button>
      )}
      {publishable ? (
        <PublishButton
          target={target}
          label={flow.status === 'PUBLISHED' ? 'Publish changes' : 'Publish'}
          onPublished={onPublished}
        />
      ) : null}
    </>
  );
}
