import { useQuery } from '@tanstack/react-query';
import { api, must } from '../../app/api';
import { FormError, formatDate, Loading } from '../../kit';

const FEATURE_LABELS: Record<string, string> = {
  flows: 'Flows',
  activeUsers: 'Monthly active users',
  apiKeys: 'API keys',
  members: 'Team members',
  aiTokens: 'AI tokens',
  journeys: 'Journeys',
  experiments: 'Experiments',
};

/** The current plan and its period, and the usage of each metered feature against its limit. */
export function Plan() {
  const current = useQuery({
    queryKey: ['plan'],
    queryFn: async () => (await must(api.GET('/api/pricing/current'))).data,
  });
  const usage = useQuery({
    queryKey: ['usage'],
    queryFn: async () => (await must(api.GET('/api/pricing/usage'))).data,
  });
  if (current.isPending || usage.isPending) return <Loading />;
  if (current.isError) return <FormError error={current.error} />;
  if (usage.isError) return <FormError error={usage.error} />;
  return (
    <div className="grid-2">
      <div className="card pad" style={{ display: 'grid', gap: 8, alignContent: 'start' }}>
        <h2>Current plan</h2>
        <div className="stat" style={{ padding: 0 }}>
          <div className="value" style={{ textTransform: 'capitalize' }}>
            {current.data.plan}
          </div>
          <div className="label">
            {current.data.status.toLowerCase()} · period ends {formatDate(current.data.currentPeriodEnd)}
          </div>
        </div>
      </div>
      <div className="card pad" style={{ display: 'grid', gap: 14 }}>
        <h2>Usage</h2>
        {usage.data.usage.map((u) => (
          <div key={u.feature} style={{ display: 'grid', gap: 4 }}>
            <div style={{ display: 'flex', justifyContent: 'space-between' }}>
              <span>{FEATURE_LABELS[u.feature] ?? u.feature}</span>
              <span className="muted">
                {!u.enabled
                  ? 'Not in your plan'
                  : u.unlimited
                    ? `${u.used} · unlimited`
                    : `${u.used} of ${u.limit}`}
              </span>
            </div>
            <div
              className="usage-bar"
              role="progressbar"
              aria-label={FEATURE_LABELS[u.feature] ?? u.feature}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={u.percentage}
            >
              <span style={{ width: `${Math.min(100, u.percentage)}%` }} />
            </div>
          </div>
        ))}
      </div>
    </div>
  );
}
