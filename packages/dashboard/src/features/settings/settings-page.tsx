import { useNavigate, useParams } from 'react-router';
import { Page, Tabs } from '../../kit';
import { AiProvider } from './ai-provider';
import { ApiKeys } from './api-keys';
import { AuditLog } from './audit-log';
import { Plan } from './plan';
import { PrivacyRequests } from './privacy-requests';
import { Team } from './team';

const TABS = [
  { value: 'team', label: 'Team', Section: Team },
  { value: 'api-keys', label: 'API keys', Section: ApiKeys },
  { value: 'audit-log', label: 'Audit log', Section: AuditLog },
  { value: 'plan', label: 'Plan & usage', Section: Plan },
  { value: 'ai', label: 'AI provider', Section: AiProvider },
  { value: 'privacy', label: 'Privacy requests', Section: PrivacyRequests },
] as const;
type Tab = (typeof TABS)[number]['value'];

/** Settings: team and invites, API keys (shown once, with the snippet), audit log, plan and usage, AI provider, privacy requests. */
export default function SettingsPage() {
  const { tab = 'team' } = useParams();
  const navigate = useNavigate();
  const { Section } = TABS.find((t) => t.value === tab) ?? TABS[0];
  return (
    <Page title="Settings">
      <Tabs<Tab>
        label="Settings sections"
        tabs={TABS}
        value={tab as Tab}
        onChange={(v) => navigate(`/settings/${v}`)}
      />
      <Section />
    </Page>
  );
}
