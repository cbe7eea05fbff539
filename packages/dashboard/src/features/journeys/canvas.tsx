import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, api, must } from '../../app/api';
import { useCan } from '../../app/session';
import { Button, Crumb, FormError, Notice, Page, StatusBadge, Tabs } from '../../kit';
import { ItemVersions, useVersionUi, VersionBadges, type VersionTarget } from '../versions';
import { CanvasCard } from './canvas-card';
import { Enrollments } from './enrollments';
import { JourneyActions, type Lifecycle } from './journey-actions';
import { canvasBody, type Journey } from './journey-model';
import { SidePanel } from './side-panel';
import { useJourneyCanvas } from './use-journey-canvas';

/**
 * The journey's page: lifecycle actions, the version badges and history, the canvas with its side
 * panel, or the enrollments. The canvas is the working copy: a published journey runs its live
 * version until "Publish changes".
 */
export function Canvas({
  journey,
  notice,
  onNotice,
}: {
  journey: Journey;
  /** The last save's or publish's success message, kept by the page across remounts. */
  notice: string | null;
  onNotice: (notice: string | null) => void;
}) {
  const client = useQueryClient();
  const canEdit = useCan('EDITOR');
  const versions = useVersionUi();
  const target: VersionTarget = {
    base: '/api/journeys',
    id: journey.id,
    noun: 'journey',
    itemKeys: [['journey', journey.id], ['journeys']],
  };
  const canvas = useJourneyCanvas(journey);
  const [tab, setTab] = useState<'canvas' | 'enrollments'>('canvas');
  const [showStats, setShowStats] = useState(false);
  const analytics = useQuery({
    queryKey: ['journey-analytics', journey.id],
    enabled: showStats,
    queryFn: async () =>
      (await must(api.GET('/api/journeys/{id}/analytics', { params: { path: { id: journey.id } } }))).data,
  });
  const path = { params: { path: { id: journey.id } } };
  const putCanvas = () =>
    must(
      api.PUT('/api/journeys/{id}/canvas', {
        ...path,
        body: canvasBody(canvas.nodes, canvas.edges) as never,
      }),
    );
  const save = useMutation({
    mutationFn: putCanvas,
    onMutate: () => onNotice(null),
    onSuccess: () => {
      onNotice('Canvas saved.');
      canvas.clearErrors();
      // the badge: the working copy may now differ from the live version
      void client.invalidateQueries({ queryKey: ['journey', journey.id] });
    },
  });
  const publish = useMutation({
    mutationFn: async () => {
      await putCanvas();
      return must(api.POST('/api/journeys/{id}/publish', { ...path, body: {} }));
    },
    onMutate: () => onNotice(null),
    onSuccess: () => {
      onNotice('Journey published.');
      void client.invalidateQueries({ queryKey: ['journey', journey.id] });
      void client.invalidateQueries({ queryKey: ['journeys'] });
      void client.invalidateQueries({ queryKey: ['versions', target.base, journey.id] });
    },
    onError: (error) => {
      // publish validation: each issue names its node
      if (error instanceof ApiError && Array.isArray(error.details))
        canvas.showErrors(error.details, canvasBody(canvas.nodes, canvas.edges).nodes);
    },
  });
  const lifecycle = useMutation({
    mutationFn: (action: Lifecycle) => {
      if (action === 'pause') return must(api.POST('/api/journeys/{id}/pause', path));
      if (action === 'unpublish') return must(api.POST('/api/journeys/{id}/unpublish', path));
      return must(api.POST('/api/journeys/{id}/restore', path));
    },
    onSuccess: () => void client.invalidateQueries({ queryKey: ['journey', journey.id] }),
  });
  const editable = canEdit && journey.status !== 'ARCHIVED';
  return (
    <Page
      title={
        <Crumb to="/journeys" list="Journeys">
          {journey.name} <StatusBadge status={journey.status} />{' '}
          <VersionBadges version={journey.version} hasUnpublishedChanges={journey.hasUnpublishedChanges} />
        </Crumb>
      }
      actions={
        <>
          <Button onClick={() => versions.setHistory(true)}>History</Button>
          {canEdit ? (
            <JourneyActions
              status={journey.status}
              editable={editable}
              onLifecycle={lifecycle.mutate}
              onSave={() => save.mutate()}
              saving={save.isPending}
              onPublish={() => publish.mutate()}
              publishing={publish.isPending}
            />
          ) : null}
        </>
      }
    >
      <ItemVersions
        target={target}
        ui={versions}
        hasUnpublishedChanges={journey.hasUnpublishedChanges}
        canEdit={canEdit}
      />
      {notice ? <Notice kind="success">{notice}</Notice> : null}
      <FormError error={publish.error ?? save.error ?? lifecycle.error} />
      <Tabs<'canvas' | 'enrollments'>
        label="Journey sections"
        tabs={[
          { value: 'canvas', label: 'Canvas' },
          { value: 'enrollments', label: `Enrollments (${journey._count.enrollments})` },
        ]}
        value={tab}
        onChange={setTab}
      />
      {tab === 'enrollments' ? (
        <Enrollments id={journey.id} />
      ) : (
        <div className="journey-grid">
          <CanvasCard
            canvas={canvas}
            editable={editable}
            showStats={showStats}
            onShowStats={setShowStats}
            analytics={showStats ? analytics.data : undefined}
          />
          <div className="card pad config-panel">
            <SidePanel canvas={canvas} editable={editable} />
          </div>
        </div>
      )}
    </Page>
  );
}
