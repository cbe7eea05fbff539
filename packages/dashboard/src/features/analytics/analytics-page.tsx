import { useNavigate, useParams, useSearchParams } from 'react-router';
import { Page, Tabs } from '../../kit';
import { DateRangeFields, useDateRange } from './date-range';
import { Funnel } from './funnel';
import { Heatmap } from './heatmap';
import { Overview } from './overview';

const TABS = [
  { value: 'overview', label: 'Overview', View: Overview },
  { value: 'funnel', label: 'Flow funnel', View: Funnel },
  { value: 'heatmap', label: 'Heatmap', View: Heatmap },
] as const;
type Tab = (typeof TABS)[number]['value'];

/** Analytics: the overview, a flow's funnel with step drop-off, a page's click heatmap; one date range for all. */
export default function AnalyticsPage() {
  const { tab = 'overview' } = useParams();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const dates = useDateRange();
  const { View } = TABS.find((t) => t.value === tab) ?? TABS[0];
  return (
    <Page
      title="Analytics"
      description="How your flows and content perform."
      actions={<DateRangeFields {...dates} />}
    >
      <Tabs<Tab>
        label="Analytics views"
        tabs={TABS}
        value={tab as Tab}
        onChange={(v) => navigate(`/analytics/${v}?${params}`)}
      />
      <View range={dates.range} />
    </Page>
  );
}
