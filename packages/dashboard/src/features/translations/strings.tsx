import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, must } from '../../app/api';
import { useCan } from '../../app/session';
import { Button, DataTable, Empty, Form, FormError, Pagination, TextField } from '../../kit';
import { type Locale, rowKey, type StringRow, stringRows } from './string-rows';
import { TranslationCell } from './translation-cell';

/** The strings: filtered by content type and id, one column per locale, and a form to add a string. */
export function Strings({ locales }: { locales: Locale[] }) {
  const canEdit = useCan('EDITOR');
  const [filter, setFilter] = useState({ contentType: '', contentId: '' });
  const [page, setPage] = useState(1);
  const [added, setAdded] = useState<StringRow[]>([]);
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
  const rows = stringRows(list.data?.data ?? [], added);
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
      {rows.length === 0 && !list.isPending ? (
        <div className="pad">
          <Empty title="No translations yet">
            Add a string below: its content type, id and field, then its text in each locale.
          </Empty>
        </div>
      ) : (
        <div style={{ overflowX: 'auto' }}>
          <DataTable
            rows={rows}
            rowKey={rowKey}
            columns={[
              {
                name: 'String',
                cell: (r) => (
                  <>
                    <div className="small muted">
                      {r.contentType} · <code>{r.contentId.slice(0, 12)}</code>
                    </div>
                    <strong>{r.fieldName}</strong>
                  </>
                ),
              },
              ...locales.map((l) => ({
                name: `locale-${l.id}`,
                header: `${l.name} (${l.code})`,
                cell: (r: StringRow) => <TranslationCell row={r} locale={l} canEdit={canEdit} />,
              })),
            ]}
          />
        </div>
      )}
      <Pagination meta={list.data?.meta} onPage={setPage} label="Translation pages" />
      {canEdit ? <AddString onAdd={(row) => setAdded([...added, row])} /> : null}
    </div>
  );
}

/** A string to translate that has no translation yet: its content type, id and field. */
function AddString({ onAdd }: { onAdd(row: StringRow): void }) {
  const [draft, setDraft] = useState({ contentType: 'flow', contentId: '', fieldName: 'title' });
  return (
    <Form
      className="pad"
      aria-label="Add a string"
      onSubmit={() => {
        if (!draft.contentId || !draft.fieldName) return;
        onAdd({ ...draft, cells: new Map() });
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
    </Form>
  );
}
