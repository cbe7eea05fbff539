import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router';
import { api, must } from '../../app/api';
import { useCan } from '../../app/session';
import { Button, Crumb, FormError, Loading, Notice, Page, StatusBadge, Tabs } from '../../kit';
import type { Flow } from './flow-model';
import { FlowSettings } from './flow-settings';
import { StepsEditor } from './steps-editor';

type Action = 'publish' | 'archive' | 'restore';
const DONE: Record<Action, string> = { publish: 'published', archive: 'archived', restore: 'restored' };

/** The flow editor: steps (drag to reorder), each step's form with a live SDK preview, targeting, trigger, schedule, lifecycle. */
export default function FlowEditorPage() {
  const { id = '' } = useParams();
  const client = useQueryClient();
  const canEdit = useCan('EDITOR');
  const [tab, setTab] = useState<'steps' | 'targeting'>('steps');
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
      if (action === 'publish') return must(api.POST('/api/flows/{id}/publish', { ...path, body: {} }));
      if (action === 'archive') return must(api.POST('/api/flows/{id}/archive', path));
      return must(api.POST('/api/flows/{id}/restore', path));
    },
    onSuccess: refresh,
  });
  if (flow.isPending) return <Loading />;
  if (flow.isError) return <FormError error={flow.error} />;
  const f = flow.data;
  return (
    <Page
      title={
        <Crumb to="/flows" list="Flows">
          {f.name} <StatusBadge status={f.status} />
        </Crumb>
      }
      actions={
        canEdit ? <FlowActions flow={f} busy={transition.isPending} onAction={transition.mutate} /> : null
      }
    >
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
        <StepsEditor flow={f} canEdit={canEdit} onChange={refresh} />
      ) : (
        <FlowSettings flow={f} canEdit={canEdit} onSaved={refresh} />
      )}
    </Page>
  );
}

/** Archive or restore, and publish while the flow is neither published nor archived. */
function FlowActions({
  flow,
  busy,
  onAction,
}: {
  flow: Flow;
  busy: boolean;
  onAction(action: Action): void;
}) {
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
      {flow.status !== 'PUBLISHED' && flow.status !== 'ARCHIVED' ? (
        <Button variant="primary" onClick={() => onAction('publish')} busy={busy}>
          Publish
        </Button>
      ) : null}
    </>
  );
}
