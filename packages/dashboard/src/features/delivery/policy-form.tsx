import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, must } from '../../app/api';
import { useCan } from '../../app/session';
import {
  Button,
  Checkbox,
  Form,
  FormError,
  FormFoot,
  fieldError,
  formatDate,
  Loading,
  SelectField,
  TextField,
} from '../../kit';
import { bodyOf, type CapRow, type Draft, draftOf, PERIODS, type Per, row, SCOPES } from './policy-draft';

/**
 * The tenant's delivery policy: frequency caps (rows of scope, max, period), the cooldown between
 * two auto-started items, and how long a dismissed item stays away ("each item decides": null).
 * Saved whole with `PUT /api/delivery-policy`; the API's messages go next to the field they name.
 * OWNER and ADMIN may save; others see it read-only.
 */
export function PolicyForm() {
  const client = useQueryClient();
  const canAdmin = useCan('ADMIN');
  const policy = useQuery({
    queryKey: ['delivery-policy'],
    queryFn: async () => (await must(api.GET('/api/delivery-policy'))).data,
  });
  const [draft, setDraft] = useState<Draft>();
  useEffect(() => {
    if (policy.data) setDraft(draftOf(policy.data));
  }, [policy.data]);
  const save = useMutation({
    mutationFn: (d: Draft) =>
      must(
        api.PUT('/api/delivery-policy', {
          // what was typed goes as it is: the API's 400 names the field that is not a number
          body: bodyOf(d) as never,
        }),
      ),
    onSuccess: (res) => client.setQueryData(['delivery-policy'], res.data),
  });
  if (policy.isPending) return <Loading />;
  if (policy.isError) return <FormError error={policy.error} />;
  if (!draft) return <Loading />;
  const set = (patch: Partial<Draft>) => {
    setDraft({ ...draft, ...patch });
    if (save.isSuccess) save.reset();
  };
  const setCap = (key: number, patch: Partial<CapRow>) =>
    set({ caps: draft.caps.map((c) => (c.key === key ? { ...c, ...patch } : c)) });
  const readOnly = !canAdmin;
  const eachItemDecides = draft.afterDismissDays === null;
  return (
    <Form className="card pad policy-form" onSubmit={() => save.mutate(draft)} aria-labelledby="policy-title">
      <h2 id="policy-title">Policy</h2>
      <p className="muted small">
        {policy.data.updatedAt
          ? `Last changed ${formatDate(policy.data.updatedAt)}.`
          : 'The defaults: nothing is held back.'}
        {readOnly ? ' Only owners and admins can change it.' : ''}
      </p>
      <fieldset className="caps">
        <legend className="field-legend">Frequency caps</legend>
        <p className="hint">
          At most this many different items a user is shown by themselves, in a rolling window. Modal-like:
          flows with a modal, video or form step, and modal announcements.
        </p>
        {draft.caps.length === 0 ? <p className="muted small">No caps.</p> : null}
        {draft.caps.map((c, i) => (
          <div className="cap-row" key={c.key} data-cap-row={i}>
            <SelectField
              label={`Cap ${i + 1} scope`}
              value={c.scope}
              disabled={readOnly}
              options={SCOPES}
              onChange={(e) => setCap(c.key, { scope: e.target.value })}
              error={fieldError(save.error, `caps.${i}.scope`)}
            />
            <TextField
              label={`Cap ${i + 1} max`}
              type="number"
              min={1}
              inputMode="numeric"
              value={c.max}
              disabled={readOnly}
              onChange={(e) => setCap(c.key, { max: e.target.value })}
              error={fieldError(save.error, `caps.${i}.max`)}
            />
            <SelectField
              label={`Cap ${i + 1} period`}
              value={c.per}
              disabled={readOnly}
              options={PERIODS}
              onChange={(e) => setCap(c.key, { per: e.target.value as Per })}
              error={fieldError(save.error, `caps.${i}.per`)}
            />
            {readOnly ? null : (
              <Button
                className="cap-remove"
                aria-label={`Remove cap ${i + 1}`}
                onClick={() => set({ caps: draft.caps.filter((x) => x.key !== c.key) })}
              >
                ✕
              </Button>
            )}
          </div>
        ))}
        {readOnly ? null : (
          <div>
            <Button onClick={() => set({ caps: [...draft.caps, row()] })}>Add cap</Button>
          </div>
        )}
      </fieldset>
      <TextField
        label="Cooldown (seconds)"
        type="number"
        min={0}
        inputMode="numeric"
        value={draft.cooldownSeconds}
        disabled={readOnly}
        onChange={(e) => set({ cooldownSeconds: e.target.value })}
        hint="Between two items that start by themselves, for one user. 0: none."
        error={fieldError(save.error, 'cooldownSeconds')}
      />
      <Checkbox
        label="Dismissed items: each item decides"
        checked={eachItemDecides}
        disabled={readOnly}
        onChange={(e) => set({ afterDismissDays: e.target.checked ? null : '14' })}
      />
      {eachItemDecides ? (
        fieldError(save.error, 'afterDismissDays') ? (
          <p className="field-error" role="alert">
            {fieldError(save.error, 'afterDismissDays')}
          </p>
        ) : null
      ) : (
        <TextField
          label="Days a dismissed item stays away"
          type="number"
          min={0}
          inputMode="numeric"
          value={draft.afterDismissDays ?? ''}
          disabled={readOnly}
          onChange={(e) => set({ afterDismissDays: e.target.value })}
          error={fieldError(save.error, 'afterDismissDays')}
        />
      )}
      <FormFoot
        error={save.error}
        claimed={['caps', 'cooldownSeconds', 'afterDismissDays']}
        done={save.isSuccess && 'Policy saved.'}
      >
        {readOnly ? null : (
          <Button type="submit" variant="primary" busy={save.isPending}>
            Save policy
          </Button>
        )}
      </FormFoot>
    </Form>
  );
}
