import { useSearchParams } from 'react-router';
import { SelectField, TextField } from '../../kit';

/** The date range every analytics view reads (inclusive days, `YYYY-MM-DD`). */
export type Range = { startDate: string; endDate: string };

const day = (d: Date) => d.toISOString().slice(0, 10);
const daysAgo = (n: number) => day(new Date(Date.now() - n * 86_400_000));

/** The range in the URL (`?from=&to=`), the last 30 days by default, and how to change it. */
export function useDateRange() {
  const [params, setParams] = useSearchParams();
  const range: Range = {
    startDate: params.get('from') ?? daysAgo(29),
    endDate: params.get('to') ?? day(new Date()),
  };
  const setRange = (from: string, to: string) => {
    const next = new URLSearchParams(params);
    next.set('from', from);
    next.set('to', to);
    setParams(next, { replace: true });
  };
  return { range, setRange, lastDays: (n: number) => setRange(daysAgo(n - 1), day(new Date())) };
}

/** A preset (last 7, 30, 90 days) and the two dates. */
export function DateRangeFields({
  range: { startDate, endDate },
  setRange,
  lastDays,
}: ReturnType<typeof useDateRange>) {
  return (
    <div className="row" style={{ minWidth: 420 }}>
      <SelectField
        label="Range"
        value=""
        onChange={(e) => e.target.value && lastDays(Number(e.target.value))}
        options={[
          { value: '', label: 'Preset…' },
          { value: '7', label: 'Last 7 days' },
          { value: '30', label: 'Last 30 days' },
          { value: '90', label: 'Last 90 days' },
        ]}
      />
      <TextField
        label="From"
        type="date"
        value={startDate}
        max={endDate}
        onChange={(e) => e.target.value && setRange(e.target.value, endDate)}
      />
      <TextField
        label="To"
        type="date"
        value={endDate}
        min={startDate}
        onChange={(e) => e.target.value && setRange(startDate, e.target.value)}
      />
    </div>
  );
}
