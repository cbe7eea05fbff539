import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, must } from '../../app/api';
import { Button, Notice } from '../../kit';
import type { Locale, StringRow } from './string-rows';

/** One string in one locale: edited in place (right to left for an RTL locale), saved with the version read. */
export function TranslationCell({
  row,
  locale,
  canEdit,
}: {
  row: StringRow;
  locale: Locale;
  canEdit: boolean;
}) {
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
