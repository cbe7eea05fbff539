import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, must, type Schemas } from '../../app/api';
import { useCan } from '../../app/session';
import {
  Button,
  FormError,
  fieldError,
  Loading,
  Notice,
  Page,
  percent,
  StatusBadge,
  TextArea,
  TextField,
} from '../../kit/ui';
import { AudiencePicker } from '../audiences/audience-picker';

const SeriesChart = lazy(() => import('./series-chart'));

type Experiment = Schemas['Experiment'];
type Variant = { id?: string; name: string; splitPercentage: number; flowId: string | null };

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
  const navigate = useNavigate();
  const canEdit = useCan('EDITOR');
  const editable = canEdit && (!experiment || experiment.status === 'draft');
  const [name, setName] = useState(experiment?.name ?? '');
  const [description, setDescription] = useState(experiment?.description ?? '');
  const [audienceId, setAudienceId] = useState(experiment?.audienceId ?? '');
  const [variants, setVariants] = useState<Variant[]>(
    experiment?.variants.map((v) => ({
      id: v.id,
      name: v.name,
      splitPercentage: v.splitPercentage,
      flowId: v.flowId,
    })) ?? [
      { name: 'Control', splitPercentage: 50, flowId: null },
      { name: 'Variant B', splitPercentage: 50, flowId: null },
    ],
  );
  const flows = useQuery({
    queryKey: ['flows', 'options'],
    queryFn: () => must(api.GET('/api/flows', { params: { query: { limit: '100' } } })),
  });
  const save = useMutation({
    mutationFn: async () => {
      const body = { name, description: description || null, audienceId: audienceId || null, variants };
      if (experiment)
        return must(api.PATCH('/api/experiments/{id}', { params: { path: { id: experiment.id } }, body }));
      return must(api.POST('/api/experiments', { body }));
    },
    onSuccess: (res) => {
      void client.invalidateQueries({ queryKey: ['experiments'] });
      void client.invalidateQueries({ queryKey: ['experiment', res.data.id] });
      if (!experiment) navigate(`/experiments/${res.data.id}`, { replace: true });
    },
  });
  const transition = useMutation({
    mutationFn: (action: 'start' | 'stop') =>
      action === 'start'
        ? must(api.POST('/api/experiments/{id}/start', { params: { path: { id: experiment!.id } } }))
        : must(api.POST('/api/experiments/{id}/stop', { params: { path: { id: experiment!.id } } })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['experiments'] });
      void client.invalidateQueries({ queryKey: ['experiment', experiment!.id] });
    },
  });
  const setVariant = (i: number, patch: Partial<Variant>) =>
    setVariants((vs) => vs.map((v, j) => (j === i ? { ...v, ...patch } : v)));
  const total = variants.reduce((s, v) => s + (Number(v.splitPercentage) || 0), 0);
  const flowOptions = [
    { value: '', label: 'No flow (holdout)' },
    ...(flows.data?.data ?? []).map((f) => ({ value: f.id, label: f.name })),
  ];
  return (
    <Page
      title={
        <>
          <Link to="/experiments" className="crumb">
            Experiments
          </Link>{' '}
          / {experiment ? experiment.name : 'New experiment'}{' '}
          {experiment ? <StatusBadge status={experiment.status} /> : null}
        </>
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
      {experiment && experiment.status !== 'draft' ? (
        <Notice>Variants and splits are fixed once an experiment has started.</Notice>
      ) : null}
      <form
        className="card pad"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <fieldset disabled={!editable}>
          <div className="row">
            <TextField
              label="Name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              error={fieldError(save.error, 'name')}
            />
            <AudiencePicker
              value={audienceId}
              onChange={setAudienceId}
              error={fieldError(save.error, 'audienceId')}
            />
          </div>
          <TextArea
            label="Hypothesis"
            rows={2}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            error={fieldError(save.error, 'description')}
          />
          <h2 className="card-title">Variants (the first is the control)</h2>
          {variants.map((v, i) => (
            <div className="row" key={v.id ?? `new-${i}-${v.name}`}>
              <TextField
                label={`Variant ${i + 1} name`}
                value={v.name}
                onChange={(e) => setVariant(i, { name: e.target.value })}
                error={fieldError(save.error, `variants.${i}.name`)}
              />
              <TextField
                label={`Variant ${i + 1} split (%)`}
                type="number"
                min={0}
                max={100}
                value={String(v.splitPercentage)}
                onChange={(e) => setVariant(i, { splitPercentage: Number(e.target.value) })}
                error={fieldError(save.error, `variants.${i}.splitPercentage`)}
              />
              <div className="field">
                <label htmlFor={`variant-flow-${i}`}>{`Variant ${i + 1} flow`}</label>
                <select
                  id={`variant-flow-${i}`}
                  value={v.flowId ?? ''}
                  onChange={(e) => setVariant(i, { flowId: e.target.value || null })}
                >
                  {flowOptions.map((o) => (
                    <option key={o.value} value={o.value}>
                      {o.label}
                    </option>
                  ))}
                </select>
              </div>
              {editable && variants.length > 2 ? (
                <div className="field">
                  <span aria-hidden="true">&nbsp;</span>
                  <Button variant="ghost" onClick={() => setVariants((vs) => vs.filter((_, j) => j !== i))}>
                    Remove variant {i + 1}
                  </Button>
                </div>
              ) : null}
            </div>
          ))}
          <p className={total === 100 ? 'hint' : 'field-error'}>
            Splits total {total}% (they must total 100%).
          </p>
        </fieldset>
        <FormError error={save.error} claimed={['name', 'description', 'audienceId', 'variants']} />
        {save.isSuccess ? <Notice kind="success">Experiment saved.</Notice> : null}
        {editable ? (
          <div className="form-actions">
            <Button
              onClick={() =>
                setVariants((vs) => [
                  ...vs,
                  {
                    name: `Variant ${String.fromCharCode(65 + vs.length)}`,
                    splitPercentage: 0,
                    flowId: null,
                  },
                ])
              }
            >
              Add variant
            </Button>
            <Button type="submit" variant="primary" busy={save.isPending}>
              {experiment ? 'Save' : 'Create experiment'}
            </Button>
          </div>
        ) : null}
      </form>
      {experiment && experiment.status !== 'draft' ? <Results id={experiment.id} /> : null}
    </Page>
  );
}

function Results({ id }: { id: string }) {
  const results = useQuery({
    queryKey: ['experiment-results', id],
    queryFn: async () =>
      (await must(api.GET('/api/experiments/{id}/results', { params: { path: { id } } }))).data,
  });
  const stats = useQuery({
    queryKey: ['experiment-stats', id],
    queryFn: async () =>
      (await must(api.POST('/api/experiments/{id}/compute-results', { params: { path: { id } } }))).data,
  });
  if (results.isPending || stats.isPending) return <Loading label="Computing results" />;
  if (results.isError) return <FormError error={results.error} />;
  if (stats.isError) return <FormError error={stats.error} />;
  const s = stats.data;
  const signed = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
  return (
    <div className="card pad" style={{ display: 'grid', gap: 16 }}>
      <h2>Results</h2>
      {s.srm.mismatch ? (
        <Notice kind="warning">
          Sample ratio mismatch: the variants' sizes differ from their splits more than chance explains (p ={' '}
          {s.srm.pValue?.toPrecision(2)}). Check the assignment before trusting these results.
        </Notice>
      ) : null}
      <table className="table" aria-label="Results by variant">
        <thead>
          <tr>
            <th scope="col">Variant</th>
            <th scope="col" className="num">
              Participants
            </th>
            <th scope="col" className="num">
              Conversions
            </th>
            <th scope="col" className="num">
              Conversion rate
            </th>
            <th scope="col" className="num">
              Lift (95% interval)
            </th>
            <th scope="col" className="num">
              p-value
            </th>
            <th scope="col" className="num">
              Chance to beat control
            </th>
          </tr>
        </thead>
        <tbody>
          {s.variants.map((v) => (
            <tr key={v.variantId}>
              <td>
                {v.variantName} {v.isControl ? <span className="badge">control</span> : null}
              </td>
              <td className="num">{v.sampleSize}</td>
              <td className="num">{v.conversions}</td>
              <td className="num">{percent(v.conversionRate)}</td>
              <td className="num">
                {v.lift
                  ? `${signed(v.lift.estimate)} (${signed(v.lift.ciLow)} to ${signed(v.lift.ciHigh)})`
                  : '—'}
              </td>
              <td className="num">{v.pValue === null ? '—' : v.pValue.toPrecision(2)}</td>
              <td className="num">
                {v.probabilityToBeatControl === null ? '—' : percent(v.probabilityToBeatControl)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Conversion rate by day</h2>
      <Suspense fallback={<Loading label="Loading chart" />}>
        <SeriesChart
          series={results.data.variants.map((v) => ({
            label: v.variantName,
            points: v.results.map((r) => ({
              date: r.date,
              value: r.participants > 0 ? r.conversions / r.participants : 0,
            })),
          }))}
        />
      </Suspense>
    </div>
  );
}
