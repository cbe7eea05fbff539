import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { api, must, type Schemas } from '../../app/api';
import { useCan } from '../../app/session';
import { Button, Crumb, FormError, Loading, Notice, Page, StatusBadge } from '../../kit';
import { ExperimentForm } from './experiment-form';
import { Results } from './results';

type Experiment = Schemas['Experiment'];

/** One experiment: variants and splits (editable while a draft), start/stop, and its results. */
export default function ExperimentPage() {
  const { id = 'new' } = useParams();
  const isNew = id === 'new';
  const experiment = useQuery({
    queryKey: ['experiment', id],
    enabled: !isNew,
    queryFn: async () => (await must(api.GET('/api/experiments/{id}', { params: { path: { id } } }))).data,
  });
  if (!isNew && experiment.isPending) return <Loading />;
  if (!isNew && experiment.isError) return <FormError error={experiment.error} />;
  return <Editor key={`${id}:${experiment.data?.updatedAt ?? ''}`} experiment={experiment.data} />;
}

function Editor({ experiment }: { experiment?: Experiment }) {
  const client = useQueryClient();
  const canEdit = useCan('EDITOR');
  const transition = useMutation({
    mutationFn: (action: 'start' | 'stop') => {
      const path = { params: { path: { id: experiment!.id } } };
      return action === 'start'
        ? must(api.POST('/api/experiments/{id}/start', path))
        : must(api.POST('/api/experiments/{id}/stop', path));
    },
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['experiments'] });
      void client.invalidateQueries({ queryKey: ['experiment', experiment!.id] });
    },
  });
  const started = experiment && experiment.status !== 'draft';
  return (
    <Page
      title={
        <Crumb to="/experiments" list="Experiments">
          {experiment ? experiment.name : 'New experiment'}{' '}
          {experiment ? <StatusBadge status={experiment.status} /> : null}
        </Crumb>
      }
      actions={
        canEdit && experiment ? (
          experiment.status === 'draft' || experiment.status === 'stopped' ? (
            <Button variant="primary" onClick={() => transition.mutate('start')} busy={transition.isPending}>
              Start
            </Button>
          ) : experiment.status === 'running' ? (
            <Button variant="danger" onClick={() => transition.mutate('stop')} busy={transition.isPending}>
              Stop
            </Button>
          ) : null
        ) : null
      }
    >
      <FormError error={transition.error} />
      {started ? <Notice>Variants and splits are fixed once an experiment has started.</Notice> : null}
      <ExperimentForm experiment={experiment} editable={canEdit && !started} />
      {started ? <Results id={experiment.id} /> : null}
    </Page>
  );
}
