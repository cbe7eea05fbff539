import { useQuery } from '@tanstack/react-query';
import { api, must } from '../../../app/api';
import { SelectField } from '../../../kit';
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

/** CONTENT: a content type, then an existing item of that type picked by name. */
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
    </>
  );
}
