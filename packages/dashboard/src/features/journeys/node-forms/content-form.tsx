import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, must } from '../../../app/api';
import { SelectField, TextField } from '../../../kit';
import {
  CONTENT_KINDS,
  contentKindLabel,
  contentKindOf,
  contentKindPath,
  type NodeFormProps,
} from './node-config';

/** The existing items of one content type, by name (the first 100; archived ones are left out). */
export function useContentItems(kind: string) {
  const path = contentKindPath(kind);
  return useQuery({
    queryKey: ['journey-content-options', path],
    queryFn: async () => {
      const res = await must(
        api.GET(path as '/api/content/tooltips', { params: { query: { limit: '100' } } }),
      );
      return (res.data as { id: string; name: string; status: string }[]).filter(
        (x) => x.status !== 'ARCHIVED',
      );
    },
  });
}

const MAX_PRIORITY = 1_000_000;

/**
 * The node's delivery priority (issue 38): empty leaves the item's own; a whole number within
 * ±1,000,000 replaces it while the journey serves the item. Kept as typed until it is valid.
 */
function PriorityField({ config, onChange }: Pick<NodeFormProps, 'config' | 'onChange'>) {
  const [text, setText] = useState(typeof config.priority === 'number' ? String(config.priority) : '');
  const n = Number(text);
  const valid = text.trim() === '' || (Number.isInteger(n) && Math.abs(n) <= MAX_PRIORITY);
  return (
    <TextField
      label="Priority (optional)"
      type="number"
      inputMode="numeric"
      step={1}
      value={text}
      onChange={(e) => {
        const value = e.target.value;
        setText(value);
        const next = Number(value);
        const { priority: _, ...rest } = config;
        if (value.trim() === '') onChange({ config: rest });
        else if (Number.isInteger(next) && Math.abs(next) <= MAX_PRIORITY)
          onChange({ config: { ...rest, priority: next } });
      }}
      error={valid ? undefined : 'A whole number between -1,000,000 and 1,000,000'}
      hint="Empty: the item's own priority. Higher shows first when the delivery policy must choose."
    />
  );
}

/** CONTENT: a content type, then an existing item of that type picked by name, and an optional priority. */
export function ContentForm({ config, contentId, onChange }: NodeFormProps) {
  const kind = contentKindOf(config);
  const items = useContentItems(kind);
  const options = [
    { value: '', label: items.isPending ? 'Loading…' : 'Choose one' },
    ...(items.data ?? []).map((x) => ({
      value: x.id,
      label: x.status === 'PUBLISHED' ? x.name : `${x.name} (${x.status.toLowerCase()})`,
    })),
  ];
  if (contentId && !options.some((o) => o.value === contentId))
    options.push({ value: contentId, label: 'Selected item (not in the first 100)' });
  const label = contentKindLabel(kind);
  return (
    <>
      <SelectField
        label="Content type"
        value={kind}
        options={CONTENT_KINDS}
        onChange={(e) => onChange({ config: { ...config, contentType: e.target.value }, contentId: null })}
      />
      <SelectField
        label={label}
        value={contentId ?? ''}
        options={options}
        onChange={(e) => onChange({ contentId: e.target.value || null })}
        error={items.isError ? 'Could not load the list' : undefined}
        hint={
          items.data && items.data.length === 0
            ? `No ${label.toLowerCase()} yet: create one first.`
            : 'Shown to the user when they reach this node.'
        }
      />
      <PriorityField config={config} onChange={onChange} />
    </>
  );
}
