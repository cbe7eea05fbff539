import { useNavigate, useParams } from 'react-router';
import { Page, Tabs } from '../../kit';
import { PolicyForm } from './policy-form';
import { Preview } from './preview';
import { PriorityList } from './priority-list';

function PolicyAndPriority() {
  return (
    <div className="grid-2 delivery-grid">
      <PolicyForm />
      <PriorityList />
    </div>
  );
}

const TABS = [
  { value: 'policy', label: 'Policy & priority', Section: PolicyAndPriority },
  { value: 'preview', label: 'Preview as a user', Section: Preview },
] as const;
type Tab = (typeof TABS)[number]['value'];

/**
 * Delivery (issue 38): the tenant's policy (caps, cooldown, dismissals) beside the priority order
 * of everything that starts by itself, and "Preview as this user": why an item is or is not shown.
 */
export default function DeliveryPage() {
  const { tab = 'policy' } = useParams();
  const navigate = useNavigate();
  const { Section } = TABS.find((t) => t.value === tab) ?? TABS[0];
  return (
    <Page
      title="Delivery"
      description="What a user is shown when several items could start: priority, frequency caps and cooldown."
    >
      <Tabs<Tab>
        label="Delivery sections"
        tabs={TABS}
        value={tab as Tab}
        onChange={(v) => navigate(`/delivery/${v}`)}
      />
      <Section />
    </Page>
  );
}
