import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError, api, must } from '../../app/api';
import { useCan } from '../../app/session';
import { Button, FormError, fieldError, Loading, Notice, Page, TextArea, TextField } from '../../kit/ui';
import { asGroup, RuleGroup, type RuleNode } from './rule-builder';

/** One audience: name, the rule builder, save/delete, and "Test this audience" against a user. */
export default function AudienceEditor() {
  const { id = 'new' } = useParams();
  const isNew = id === 'new';
  const audience = useQuery({
    queryKey: ['audience', id],
    enabled: !isNew,
    queryFn: async () => (await must(api.GET('/api/audiences/{id}', { params: { path: { id } } }))).data,
  });
  if (!isNew && audience.isPending) return <Loading />;
  if (!isNew && audience.isError) return <FormError error={audience.error} />;
  return <Editor key={id} id={isNew ? undefined : id} initial={audience.data} />;
}

type Audience = { name: string; description: string | null; ruleTree: RuleNode; updatedAt?: string };

function Editor({ id, initial }: { id?: string; initial?: Audience }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const canEdit = useCan('EDITOR');
  const [name, setName] = useState(initial?.name ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const [tree, setTree] = useState<RuleNode>(asGroup(initial?.ruleTree));
  const save = useMutation({
    mutationFn: async () => {
      const body = { name, description: description || undefined, ruleTree: tree };
      if (id) return must(api.PATCH('/api/audiences/{id}', { params: { path: { id } }, body }));
      return must(api.POST('/api/audiences', { body }));
    },
    onSuccess: (res) => {
      void client.invalidateQueries({ queryKey: ['audiences'] });
      void client.invalidateQueries({ queryKey: ['audience', res.data.id] });
      if (!id) navigate(`/audiences/${res.data.id}`, { replace: true });
    },
  });
  const remove = useMutation({
    mutationFn: () => must(api.DELETE('/api/audiences/{id}', { params: { path: { id: id! } } })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['audiences'] });
      navigate('/audiences');
    },
  });
  const errorAt = (path: string) =>
    save.error instanceof ApiError ? save.error.fields.find((f) => f.path === path)?.message : undefined;
  return (
    <Page
      title={
        <>
          <Link to="/audiences" className="crumb">
            Audiences
          </Link>{' '}
          / {id ? initial?.name : 'New audience'}
        </>
      }
      actions={
        canEdit && id ? (
          <Button variant="danger" onClick={() => remove.mutate()} busy={remove.isPending}>
            Delete
          </Button>
        ) : null
      }
    >
      {!canEdit ? <Notice>You have view-only access.</Notice> : null}
      <FormError error={remove.error} />
      <div className="grid-2">
        <form
          className="card pad"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
        >
          <fieldset disabled={!canEdit}>
            <TextField
              label="Name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              error={fieldError(save.error, 'name')}
            />
            <TextArea
              label="Description"
              rows={2}
              value={description}
              onChange={(e) => setDescription(e.target.value)}
              error={fieldError(save.error, 'description')}
            />
          </fieldset>
          <div className="field">
            <span className="card-title">Rules</span>
            <RuleGroup node={tree} onChange={setTree} path="ruleTree" disabled={!canEdit} errorAt={errorAt} />
          </div>
          <FormError error={save.error} claimed={['name', 'description', 'ruleTree']} />
          {save.isSuccess ? <Notice kind="success">Audience saved.</Notice> : null}
          {canEdit ? (
            <div className="form-actions">
              <Button type="submit" variant="primary" busy={save.isPending}>
                {id ? 'Save' : 'Create audience'}
              </Button>
            </div>
          ) : null}
        </form>
        {id ? (
          <TestAudience id={id} />
        ) : (
          <div className="card pad muted">Save the audience to test it against a user.</div>
        )}
      </div>
    </Page>
  );
}

function TestAudience({ id }: { id: string }) {
  const [traits, setTraits] = useState('{\n  "plan": "pro"\n}');
  const [userId, setUserId] = useState('');
  const [role, setRole] = useState('');
  const [deviceType, setDeviceType] = useState('');
  const [browser, setBrowser] = useState('');
  const [parseError, setParseError] = useState<string>();
  const evaluate = useMutation({
    mutationFn: (parsed: Record<string, unknown>) =>
      must(
        api.POST('/api/audiences/{id}/evaluate', {
          params: { path: { id } },
          body: {
            traits: parsed,
            userId: userId || undefined,
            role: role || undefined,
            device:
              deviceType || browser
                ? { type: deviceType || undefined, browser: browser || undefined }
                : undefined,
          },
        }),
      ),
  });
  const run = () => {
    try {
      const parsed = JSON.parse(traits || '{}');
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
        throw new Error('Traits must be a JSON object');
      setParseError(undefined);
      evaluate.mutate(parsed);
    } catch (e) {
      setParseError(e instanceof Error ? e.message : String(e));
    }
  };
  const result = evaluate.data?.data;
  return (
    <form
      className="card pad"
      aria-label="Test this audience"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        run();
      }}
    >
      <h2>Test this audience</h2>
      <p className="muted small">Check whether a user with these traits would be in it (nothing is saved).</p>
      <TextArea
        label="Traits (JSON)"
        rows={5}
        value={traits}
        onChange={(e) => setTraits(e.target.value)}
        error={parseError ?? fieldError(evaluate.error, 'traits')}
        spellCheck={false}
      />
      <div className="row">
        <TextField label="User id" value={userId} onChange={(e) => setUserId(e.target.value)} />
        <TextField label="Role" value={role} onChange={(e) => setRole(e.target.value)} />
      </div>
      <div className="row">
        <TextField
          label="Device type"
          placeholder="desktop"
          value={deviceType}
          onChange={(e) => setDeviceType(e.target.value)}
        />
        <TextField
          label="Browser"
          placeholder="chrome"
          value={browser}
          onChange={(e) => setBrowser(e.target.value)}
        />
      </div>
      <FormError error={evaluate.error} claimed={['traits']} />
      {result ? (
        <div className={`notice ${result.matches ? 'notice-success' : 'notice-warning'}`} role="status">
          <div className="match-result">
            {result.matches
              ? '✓ Matches: this user is in the audience'
              : '✗ No match: this user is not in the audience'}
          </div>
          <div className="small">
            {result.matchedRules} of {result.totalRules} rules matched
          </div>
        </div>
      ) : null}
      <div className="form-actions">
        <Button type="submit" busy={evaluate.isPending}>
          Run test
        </Button>
      </div>
    </form>
  );
}
