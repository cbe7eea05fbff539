import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, must } from '../../app/api';
import { useCan } from '../../app/session';
import {
  Button,
  Checkbox,
  Empty,
  FormError,
  fieldError,
  Loading,
  Notice,
  Page,
  Pagination,
  TextField,
} from '../../kit/ui';

/** Translations side by side, one column per locale (RTL locales edited RTL), and the locales themselves. */
export default function Translations() {
  const locales = useQuery({
    queryKey: ['locales'],
    queryFn: async () => (await must(api.GET('/api/translations/locales'))).data,
  });
  return (
    <Page title="Translations" description="Your flows and content in every language you support.">
      {locales.isPending ? (
        <Loading />
      ) : locales.isError ? (
        <FormError error={locales.error} />
      ) : (
        <Locales locales={locales.data} />
      )}
      {locales.data && locales.data.length > 0 ? <Strings locales={locales.data} /> : null}
    </Page>
  );
}

type Locale = { id: string; code: string; name: string; isDefault: boolean; isRtl: boolean };

function Locales({ locales }: { locales: Locale[] }) {
  const client = useQueryClient();
  const canEdit = useCan('EDITOR');
  const [form, setForm] = useState({ code: '', name: '', isDefault: false, isRtl: false });
  const create = useMutation({
    mutationFn: () => must(api.POST('/api/translations/locales', { body: form })),
    onSuccess: () => {
      setForm({ code: '', name: '', isDefault: false, isRtl: false });
      void client.invalidateQueries({ queryKey: ['locales'] });
    },
  });
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
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Code</th>
              <th scope="col">Name</th>
              <th scope="col">Direction</th>
              <th scope="col">Translated</th>
            </tr>
          </thead>
          <tbody>
            {locales.map((l) => (
              <tr key={l.id}>
                <td>
                  <code>{l.code}</code>{' '}
                  {l.isDefault ? <span className="badge badge-active">default</span> : null}
                </td>
                <td>{l.name}</td>
                <td>{l.isRtl ? 'Right to left' : 'Left to right'}</td>
                <td>{pct.has(l.code) ? `${pct.get(l.code)}%` : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {canEdit ? (
        <form
          className="pad"
          aria-label="Add a locale"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate();
          }}
        >
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
        </form>
      ) : null}
    </div>
  );
}

type Row = {
  contentType: string;
  contentId: string;
  fieldName: string;
  cells: Map<string, { value: string; version: number }>;
};

function Strings({ locales }: { locales: Locale[] }) {
  const canEdit = useCan('EDITOR');
  const [filter, setFilter] = useState({ contentType: '', contentId: '' });
  const [page, setPage] = useState(1);
  const list = useQuery({
    queryKey: ['translations', filter, page],
    queryFn: () =>
      must(
        api.GET('/api/translations', {
          params: {
            query: {
              page: String(page),
              limit: '100',
              contentType: filter.contentType || undefined,
              contentId: filter.contentId || undefined,
            },
          },
        }),
      ),
  });
  const rows = new Map<string, Row>();
  for (const t of list.data?.data ?? []) {
    const key = `${t.contentType}\u0000${t.contentId}\u0000${t.fieldName}`;
    const row = rows.get(key) ?? {
      contentType: t.contentType,
      contentId: t.contentId,
      fieldName: t.fieldName,
      cells: new Map(),
    };
    row.cells.set(t.locale.code, { value: t.value, version: t.version });
    rows.set(key, row);
  }
  const [extra, setExtra] = useState<Row[]>([]);
  const [draft, setDraft] = useState({ contentType: 'flow', contentId: '', fieldName: 'title' });
  const all = [
    ...rows.values(),
    ...extra.filter((r) => !rows.has(`${r.contentType}\u0000${r.contentId}\u0000${r.fieldName}`)),
  ];
  return (
    <div className="card">
      <div className="card-header">
        <h2>Strings</h2>
        <div className="row" style={{ minWidth: 420 }}>
          <input
            aria-label="Filter by content type"
            placeholder="Content type"
            value={filter.contentType}
            onChange={(e) => setFilter({ ...filter, contentType: e.target.value })}
          />
          <input
            aria-label="Filter by content id"
            placeholder="Content id"
            value={filter.contentId}
            onChange={(e) => setFilter({ ...filter, contentId: e.target.value })}
          />
        </div>
      </div>
      {list.isError ? <FormError error={list.error} /> : null}
      {all.length === 0 && !list.isPending ? (
        <div className="pad">
          <Empty title="No translations yet">
            Add a string below: its content type, id and field, then its text in each locale.
          </Empty>
        </div>
      ) : (
        <div style={{ overflowX: 'auto' }}>
          <table className="table">
            <thead>
              <tr>
                <th scope="col">String</th>
                {locales.map((l) => (
                  <th scope="col" key={l.id}>
                    {l.name} ({l.code})
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {all.map((r) => (
                <tr key={`${r.contentType}:${r.contentId}:${r.fieldName}`}>
                  <td>
                    <div className="small muted">
                      {r.contentType} · <code>{r.contentId.slice(0, 12)}</code>
                    </div>
                    <strong>{r.fieldName}</strong>
                  </td>
                  {locales.map((l) => (
                    <td key={l.id}>
                      <Cell row={r} locale={l} canEdit={canEdit} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pagination meta={list.data?.meta} onPage={setPage} label="Translation pages" />
      {canEdit ? (
        <form
          className="pad"
          aria-label="Add a string"
          onSubmit={(e) => {
            e.preventDefault();
            if (!draft.contentId || !draft.fieldName) return;
            setExtra([...extra, { ...draft, cells: new Map() }]);
          }}
        >
          <div className="row">
            <TextField
              label="Content type"
              value={draft.contentType}
              onChange={(e) => setDraft({ ...draft, contentType: e.target.value })}
            />
            <TextField
              label="Content id"
              value={draft.contentId}
              onChange={(e) => setDraft({ ...draft, contentId: e.target.value })}
            />
            <TextField
              label="Field"
              value={draft.fieldName}
              onChange={(e) => setDraft({ ...draft, fieldName: e.target.value })}
            />
          </div>
          <div className="form-actions">
            <Button type="submit">Add string</Button>
          </div>
        </form>
      ) : null}
    </div>
  );
}

function Cell({ row, locale, canEdit }: { row: Row; locale: Locale; canEdit: boolean }) {
  const client = useQueryClient();
  const current = row.cells.get(locale.code);
  const [value, setValue] = useState(current?.value ?? '');
  const save = useMutation({
    mutationFn: () =>
      must(
        api.POST('/api/translations', {
          body: {
            contentType: row.contentType,
            contentId: row.contentId,
            fieldName: row.fieldName,
            localeCode: locale.code,
            value,
            version: current?.version ?? 0,
          },
        }),
      ),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['translations'] }),
  });
  const dirty = value !== (current?.value ?? '');
  return (
    <div style={{ display: 'grid', gap: 4 }}>
      <textarea
        rows={2}
        dir={locale.isRtl ? 'rtl' : 'ltr'}
        lang={locale.code}
        className={locale.isRtl ? 'rtl' : undefined}
        aria-label={`${row.fieldName} in ${locale.name}`}
        value={value}
        disabled={!canEdit}
        onChange={(e) => setValue(e.target.value)}
      />
      {canEdit && dirty && value ? (
        <Button variant="ghost" onClick={() => save.mutate()} busy={save.isPending}>
          Save {locale.code}
        </Button>
      ) : null}
      {save.isSuccess && !dirty ? <span className="small muted">Saved</span> : null}
      {save.error ? <Notice kind="error">{(save.error as Error).message}</Notice> : null}
    </div>
  );
}
