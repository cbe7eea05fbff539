import { useQuery } from '@tanstack/react-query';
import { api, must } from '../../app/api';
import { SelectField } from '../../kit';

/** Audiences as options for a targeting select (the first 100 by name). */
export function AudiencePicker({
  value,
  onChange,
  error,
  label = 'Audience',
}: {
  value: string;
  onChange(id: string): void;
  error?: string;
  label?: string;
}) {
  const audiences = useQuery({
    queryKey: ['audiences', 'options'],
    queryFn: () => must(api.GET('/api/audiences', { params: { query: { limit: '100' } } })),
  });
  const options = [
    { value: '', label: 'Everyone' },
    ...(audiences.data?.data ?? []).map((a) => ({ value: a.id, label: a.name })),
  ];
  if (value && !options.some((o) => o.value === value)) options.push({ value, label: 'Selected audience' });
  return (
    <SelectField
      label={label}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      options={options}
      error={error}
      hint="Who sees it."
    />
  );
}
