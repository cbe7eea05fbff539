import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { ApiError, api, must } from '../../app/api';
import { useCan } from '../../app/session';
import {
  Button,
  Crumb,
  Form,
  FormError,
  FormFoot,
  fieldError,
  Loading,
  Notice,
  Page,
  TextArea,
  TextField,
} from '../../kit';
import { ItemVersions, useVersionUi, type VersionTarget } from '../versions';
import { RuleGroup } from './rule-group';
import { asGroup, type RuleNode } from './rule-tree';
import { TestAudience } from './test-audience';

/** One audience: name, the rule builder, save/delete, and "Test this audience" against a user. */
export default function AudienceEditor() {
  const { id = 'new' } = useParams();
  const isNew = id === 'new';
  const versions = useVersionUi();
  const canEdit = useCan('EDITOR');
  const audience = useQuery({
    queryKey: ['audience', id],
    enabled: !isNew,
    queryFn: async () => (await must(api.GET('/api/audiences/{id}', { params: { path: { id } } }))).data,
  });
  if (!isNew && audience.isPending) return <Loading />;
  if (!isNew && audience.isError) return <FormError error={audience.error} />;
  const target: VersionTarget = {
    base: '/api/audiences',
    id,
    noun: 'audience',
    draftless: true,
    itemKeys: [['audience', id], ['audiences']],
  };
  return (
    <>
      {/* A restore changes the audience at once: the form starts again from it. */}
      <Editor
        key={`${id}:${versions.restored}`}
        id={isNew ? undefined : id}
        initial={audience.data}
        onHistory={isNew ? undefined : () => versions.setHistory(true)}
      />
      {isNew ? null : <ItemVersions target={target} ui={versions} canEdit={canEdit} />}
    </>
  );
}

type Audience = { name: string; description: string | null; ruleTree: RuleNode; updatedAt?: string };

function Editor({ id, initial, onHistory }: { id?: string; initial?: Audience; onHistory?(): void }) {
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
        <Crumb to="/audiences" list="Audiences">
          {id ? initial?.name : 'New audience'}
        </Crumb>
      }
      actions={
        <>
          {onHistory ? <Button onClick={onHistory}>History</Button> : null}
          {canEdit && id ? (
            <Button variant="danger" onClick={() => remove.mutate()} busy={remove.isPending}>
              Delete
            </Button>
          ) : null}
        </>
      }
    >
      {!canEdit ? <Notice>You have view-only access.</Notice> : null}
      <FormError error={remove.error} />
      <div className="grid-2">
        <Form className="card pad" onSubmit={() => save.mutate()}>
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
          <FormFoot
            error={save.error}
            claimed={['name', 'description', 'ruleTree']}
            done={save.isSuccess && 'Audience saved.'}
          >
            {canEdit ? (
              <Button type="submit" variant="primary" busy={save.isPending}>
                {id ? 'Save' : 'Create audience'}
              </Button>
            ) : null}
          </FormFoot>
        </Form>
        {id ? (
          <TestAudience id={id} />
        ) : (
          <div className="card pad muted">Save the audience to test it against a user.</div>
        )}
      </div>
    </Page>
  );
}
