import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, must } from '../../app/api';
import { useCan } from '../../app/session';
import { Button, Checkbox, DataTable, Form, FormError, fieldError, TextField } from '../../kit';
import type { Locale } from './string-rows';

/** The locales: code, name, direction, how much is translated; and the form that adds one. */
export function Locales({ locales }: { locales: Locale[] }) {
  const canEdit = useCan('EDITOR');
  const status = useQuery({
    queryKey: ['translations', 'status'],
    queryFn: async () => (await must(api.GET('/api/translations/status'))).data,
  });
  const pct = new Map(status.data?.map((s) => [s.localeCode, s.percentage]));
  return (
    <div className="card">
      <div className="card-header">
        <h2>Locales</h2>
      </div>
      {locales.length === 0 ? (
        <p className="pad muted">No locales yet: add your default language first.</p>
      ) : (
        <DataTable
          rows={locales}
          rowKey={(l) => l.id}
          columns={[
            {
              name: 'Code',
              cell: (l) => (
                <>
                  <code>{l.code}</code>{' '}
                  {l.isDefault ? <span className="badge badge-active">default</span> : null}
                </>
              ),
            },
            { name: 'Name', cell: (l) => l.name },
            { name: 'Direction', cell: (l) => (l.isRtl ? 'Right to left' : 'Left to right') },
            { name: 'Translated', cell: (l) => (pct.has(l.code) ? `${pct.get(l.code)}%` : '—') },
          ]}
        />
      )}
      {canEdit ? <AddLocale /> : null}
    </div>
  );
}

const EMPTY = { code: '', name: '', isDefault: false, isRtl: false };

/** A new locale: its code, name, whether it is the default and whether it reads right to left. */
function AddLocale() {
  const client = useQueryClient();
  const [form, setForm] = useState(EMPTY);
  const create = useMutation({
    mutationFn: () => must(api.POST('/api/translations/locales', { body: form })),
    onSuccess: () => {
      setForm(EMPTY);
      void client.invalidateQueries({ queryKey: ['locales'] });
    },
  });
  return (
    <Form className="pad" aria-label="Add a locale" onSubmit={() => create.mutate()}>
      <div className="row">
        <TextField
          label="Locale code"
          placeholder="fr"
          value={form.code}
          onChange={(e) => setForm({ ...form, code: e.target.value })}
          error={fieldError(create.error, 'code')}
        />
        <TextField
          label="Locale name"
          placeholder="Français"
          value={form.name}
          onChange={(e) => setForm({ ...form, name: e.target.value })}
          error={fieldError(create.error, 'name')}
        />
        <div className="field">
          <span className="small">Options</span>
          <Checkbox
            label="Default"
            checked={form.isDefault}
            onChange={(e) => setForm({ ...form, isDefault: e.target.checked })}
          />
          <Checkbox
            label="Right to left"
            checked={form.isRtl}
            onChange={(e) => setForm({ ...form, isRtl: e.target.checked })}
          />
        </div>
      </div>
      <FormError error={create.error} claimed={['code', 'name']} />
      <div className="form-actions">
        <Button type="submit" busy={create.isPending}>
          Add locale
        </Button>
      </div>
    </Form>
  );
}
