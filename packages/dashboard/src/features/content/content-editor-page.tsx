import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { api, must } from '../../app/api';
import { useCan, useSiteId } from '../../app/session';
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
  StatusBadge,
} from '../../kit';
import { BrokenNotice } from '../targeting';
import { ItemVersions, useVersionUi, VersionBadges, type VersionTarget, type VersionUi } from '../versions';
import { type ContentAction, ContentActions, DONE } from './content-actions';
import { ContentFields } from './content-fields';
import {
  type ContentItem,
  type ContentRecord,
  claimedFields,
  jsonTexts,
  newRecord,
  requestBody,
  triggerText,
} from './content-record';
import { ContentTargetExtra, useContentTarget } from './content-targeting';
import { type ContentMeta, type ContentType, collectionPath, contentTypeOf } from './content-types';
import { Responses } from './responses';

type Item = ContentItem;

/** One item of a content type (or a new one): its fields, audience, trigger, lifecycle and responses. */
export default function ContentEditorPage() {
  const { type, id = 'new' } = useParams();
  const meta = contentTypeOf(type);
  const isNew = id === 'new';
  // Above the editor, which remounts when the item changes (a publish, a restore): kept open.
  const versionUi = useVersionUi();
  const item = useQuery({
    queryKey: ['content-item', meta.value, id],
    enabled: !isNew,
    queryFn: async () =>
      (
        await must(
          api.GET(`${collectionPath(meta.value)}/{id}` as '/api/content/tooltips/{id}', {
            params: { path: { id } },
          }),
        )
      ).data as unknown as Item,
  });
  if (!isNew && item.isPending) return <Loading />;
  if (!isNew && item.isError) return <FormError error={item.error} />;
  return (
    <Editor
      key={`${meta.value}:${id}:${item.data?.updatedAt ?? ''}`}
      meta={meta}
      item={item.data}
      versionUi={versionUi}
    />
  );
}

function Editor({ meta, item, versionUi }: { meta: ContentMeta; item?: Item; versionUi: VersionUi }) {
  const type: ContentType = meta.value;
  const client = useQueryClient();
  const navigate = useNavigate();
  const siteId = useSiteId();
  const canEdit = useCan('EDITOR');
  const initial = item ?? newRecord(type);
  const [record, setRecord] = useState<ContentRecord>(initial);
  const [json, setJson] = useState(() => jsonTexts(type, initial));
  const [trigger, setTrigger] = useState(() => triggerText(initial));
  const [jsonError, setJsonError] = useState<Record<string, string>>({});
  const targeting = useContentTarget(type, item, (targetSelector) =>
    setRecord((r) => ({ ...r, targetSelector })),
  );
  const base = collectionPath(type);
  const target: VersionTarget | undefined = item && {
    base,
    id: item.id,
    noun: meta.one,
    itemKeys: [
      ['content', type],
      ['content-item', type],
    ],
  };
  const save = useMutation({
    mutationFn: async (payload: ContentRecord) => {
      if (item)
        return must(
          api.PATCH(`${base}/{id}` as '/api/content/tooltips/{id}', {
            params: { path: { id: item.id } },
            body: payload as never,
          }),
        );
      return must(api.POST(base as '/api/content/tooltips', { body: { ...payload, siteId } as never }));
    },
    onSuccess: (res) => {
      void client.invalidateQueries({ queryKey: ['content', type] });
      void client.invalidateQueries({ queryKey: ['content-item', type] });
      if (!item) navigate(`/content/${type}/${res.data.id}`, { replace: true });
    },
  });
  const transition = useMutation({
    mutationFn: async (action: ContentAction) => {
      const path = { params: { path: { id: item!.id } } };
      if (action === 'archive') return must(api.DELETE(`${base}/{id}` as '/api/content/tooltips/{id}', path));
      return must(
        api.POST(`${base}/{id}/${action}` as '/api/content/tooltips/{id}/publish', { ...path, body: {} }),
      );
    },
    onSuccess: () => {
      versionUi.setPublished(undefined);
      void client.invalidateQueries({ queryKey: ['content'] });
      void client.invalidateQueries({ queryKey: ['content-item', type] });
    },
  });
  const err = (p: string) => fieldError(save.error, p);
  const status = item?.status;
  return (
    <Page
      title={
        <Crumb to={`/content/${type}`} list={meta.label}>
          {item ? item.name : `New ${meta.one}`} {status ? <StatusBadge status={status} /> : null}{' '}
          <VersionBadges version={item?.version} hasUnpublishedChanges={item?.hasUnpublishedChanges} />
        </Crumb>
      }
      actions={
        target && status ? (
          <ContentActions
            status={status}
            canEdit={canEdit}
            hasUnpublishedChanges={item?.hasUnpublishedChanges}
            target={target}
            ui={versionUi}
            onAction={transition.mutate}
          />
        ) : null
      }
    >
      {target ? (
        <ItemVersions
          target={target}
          ui={versionUi}
          hasUnpublishedChanges={item?.hasUnpublishedChanges}
          canEdit={canEdit}
        />
      ) : null}
      {!canEdit ? <Notice>You have view-only access.</Notice> : null}
      {targeting.health?.broken ? <BrokenNotice subject={`This ${meta.one}`} /> : null}
      <FormError error={transition.error} />
      {transition.isSuccess ? (
        <Notice kind="success">
          Done: the {meta.one} is now {DONE[transition.variables]}.
        </Notice>
      ) : null}
      <div className="grid-2">
        <Form
          className="card pad"
          onSubmit={() => {
            const built = requestBody(type, record, json, trigger);
            setJsonError(built.errors ?? {});
            if (built.body)
              save.mutate({ ...built.body, ...targeting.fingerprintFor(record.targetSelector) });
          }}
        >
          <fieldset disabled={!canEdit}>
            <ContentFields
              type={type}
              record={record}
              onRecord={setRecord}
              json={json}
              onJson={setJson}
              trigger={trigger}
              onTrigger={setTrigger}
              errorAt={(p) => jsonError[p] ?? err(p)}
              targetExtra={<ContentTargetExtra {...targeting} noun={meta.one} canEdit={canEdit} />}
            />
          </fieldset>
          <FormFoot error={save.error} claimed={claimedFields(type)} done={save.isSuccess && 'Saved.'}>
            {canEdit ? (
              <Button type="submit" variant="primary" busy={save.isPending}>
                {item ? 'Save' : `Create ${meta.one}`}
              </Button>
            ) : null}
          </FormFoot>
        </Form>
        {item && (type === 'nps' || type === 'surveys') ? <Responses type={type} id={item.id} /> : null}
      </div>
    </Page>
  );
}
