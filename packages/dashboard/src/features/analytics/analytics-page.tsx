import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { api, must } from '../../app/api';
import { Empty, FormError, Loading, Page, percent, SelectField, Tabs, TextField } from '../../kit/ui';

const TABS = [
  { value: 'overview', label: 'Overview' },
  { value: 'funnel', label: 'Flow funnel' },
  { value: 'heatmap', label: 'Heatmap' },
] as const;
type Tab = (typeof TABS)[number]['value'];

const day = (d: Date) => d.toISOString().slice(0, 10);
const daysAgo = (n: number) => day(new Date(Date.now() - n * 86_400_000));

/** Analytics: the overview, a flow's funnel with step drop-off, a page's click heatmap; one date range for all. */
export default function Analytics() {
  const { tab = 'overview' } = useParams();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const startDate = params.get('from') ?? daysAgo(29);
  const endDate = params.get('to') ?? day(new Date());
  const setRange = (from: string, to: string) => {
    const next = new URLSearchParams(params);
    next.set('from', from);
    next.set('to', to);
    setParams(next, { replace: true });
  };
  const range = { startDate, endDate };
  return (
    <Page
      title="Analytics"
      description="How your flows and content perform."
      actions={
        <div className="row" style={{ minWidth: 420 }}>
          <SelectField
            label="Range"
            value=""
            onChange={(e) => e.target.value && setRange(daysAgo(Number(e.target.value) - 1), day(new Date()))}
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
      }
    >
      <Tabs<Tab>
        label="Analytics views"
        tabs={TABS}
        value={tab as Tab}
        onChange={(v) => navigate(`/analytics/${v}?${params}`)}
      />
      {tab === 'funnel' ? (
        <Funnel range={range} />
      ) : tab === 'heatmap' ? (
        <Heatmap range={range} />
      ) : (
        <Overview range={range} />
      )}
    </Page>
  );
}

type Range = { startDate: string; endDate: string };

function Overview({ range }: { range: Range }) {
  const overview = useQuery({
    queryKey: ['analytics', 'overview', range],
    queryFn: async () => (await must(api.GET('/api/analytics/overview', { params: { query: range } }))).data,
  });
  if (overview.isPending) return <Loading />;
  if (overview.isError) return <FormError error={overview.error} />;
  const o = overview.data;
  const stats = [
    { label: 'Active users', value: o.activeUsers.toLocaleString() },
    { label: 'Events', value: o.totalEvents.toLocaleString() },
    { label: 'Flow completions', value: o.flowCompletions.toLocaleString() },
    { label: 'Completion rate', value: percent(o.completionRate) },
    { label: 'Published flows', value: `${o.publishedFlows} / ${o.totalFlows}` },
  ];
  return (
    <div className="stats">
      {stats.map((s) => (
        <div className="card stat" key={s.label}>
          <div className="value">{s.value}</div>
          <div className="label">{s.label}</div>
        </div>
      ))}
    </div>
  );
}

function Funnel({ range }: { range: Range }) {
  const [params, setParams] = useSearchParams();
  const flows = useQuery({
    queryKey: ['flows', 'options'],
    queryFn: () => must(api.GET('/api/flows', { params: { query: { limit: '100' } } })),
  });
  const flowId = params.get('flow') ?? flows.data?.data[0]?.id ?? '';
  const funnel = useQuery({
    queryKey: ['analytics', 'flow', flowId, range],
    enabled: Boolean(flowId),
    queryFn: async () =>
      (await must(api.GET('/api/analytics/flows/{flowId}', { params: { path: { flowId }, query: range } })))
        .data,
  });
  if (flows.isPending) return <Loading />;
  if (flows.isError) return <FormError error={flows.error} />;
  if (flows.data.data.length === 0)
    return <Empty title="No flows yet">Create and publish a flow to see its funnel.</Empty>;
  const f = funnel.data;
  return (
    <div className="card pad" style={{ display: 'grid', gap: 16 }}>
      <div style={{ maxWidth: 360 }}>
        <SelectField
          label="Flow"
          value={flowId}
          onChange={(e) => {
            const next = new URLSearchParams(params);
            next.set('flow', e.target.value);
            setParams(next, { replace: true });
          }}
          options={flows.data.data.map((x) => ({ value: x.id, label: x.name }))}
        />
      </div>
      {funnel.isPending ? <Loading /> : null}
      {funnel.isError ? <FormError error={funnel.error} /> : null}
      {f ? (
        <>
          <div className="stats">
            <div className="card stat">
              <div className="value">{f.totalStarts}</div>
              <div className="label">Started</div>
            </div>
            <div className="card stat">
              <div className="value">{f.completed}</div>
              <div className="label">Completed</div>
            </div>
            <div className="card stat">
              <div className="value">{f.dismissed + f.skipped}</div>
              <div className="label">Dismissed or skipped</div>
            </div>
            <div className="card stat">
              <div className="value">{percent(f.completionRate)}</div>
              <div className="label">Completion rate</div>
            </div>
          </div>
          <h2>Step drop-off</h2>
          {f.stepDropOff.length === 0 ? (
            <p className="muted">This flow has no steps.</p>
          ) : (
            <table className="table" aria-label="Funnel">
              <thead>
                <tr>
                  <th scope="col">Step</th>
                  <th scope="col">Reached</th>
                  <th scope="col" className="num">
                    Users
                  </th>
                  <th scope="col" className="num">
                    Drop-off
                  </th>
                </tr>
              </thead>
              <tbody>
                {f.stepDropOff.map((s) => {
                  const top = Math.max(1, f.stepDropOff[0]?.reached ?? 1, f.totalStarts);
                  return (
                    <tr key={s.stepId}>
                      <td>
                        {s.stepOrder + 1}. {s.stepTitle ?? 'Untitled step'}
                      </td>
                      <td style={{ width: '45%' }}>
                        <div className="bar" aria-hidden="true">
                          <span style={{ width: `${(100 * s.reached) / top}%` }} />
                        </div>
                      </td>
                      <td className="num">{s.reached}</td>
                      <td className="num">
                        {s.dropOffCount} ({percent(s.dropOffRate)})
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </>
      ) : null}
    </div>
  );
}

function Heatmap({ range }: { range: Range }) {
  const [params, setParams] = useSearchParams();
  const url = params.get('url') ?? '';
  const screenshot = params.get('screenshot') ?? '';
  const [draftUrl, setDraftUrl] = useState(url);
  const [draftShot, setDraftShot] = useState(screenshot);
  const heat = useQuery({
    queryKey: ['analytics', 'heatmap', url, range],
    enabled: Boolean(url),
    queryFn: async () =>
      (await must(api.GET('/api/analytics/heatmaps', { params: { query: { url, ...range } } }))).data,
  });
  const h = heat.data;
  const maxX = Math.max(1280, ...(h?.points.map((p) => p.x) ?? []));
  const maxY = Math.max(800, ...(h?.points.map((p) => p.y) ?? []));
  const top = Math.max(1, ...(h?.points.map((p) => p.count) ?? []));
  return (
    <div className="card pad" style={{ display: 'grid', gap: 16 }}>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          const next = new URLSearchParams(params);
          next.set('url', draftUrl);
          if (draftShot) next.set('screenshot', draftShot);
          else next.delete('screenshot');
          setParams(next, { replace: true });
        }}
      >
        <TextField
          label="Page URL"
          placeholder="https://app.example.com/dashboard"
          value={draftUrl}
          onChange={(e) => setDraftUrl(e.target.value)}
          error={heat.error ? (heat.error as Error).message : undefined}
        />
        <TextField
          label="Screenshot URL (optional)"
          placeholder="https://…/page.png"
          value={draftShot}
          onChange={(e) => setDraftShot(e.target.value)}
        />
        <div className="field">
          <span aria-hidden="true">&nbsp;</span>
          <button type="submit" className="btn btn-primary">
            Show heatmap
          </button>
        </div>
      </form>
      {!url ? (
        <Empty title="Pick a page">Enter the URL of a page of your app to see where users click.</Empty>
      ) : null}
      {heat.isPending && url ? <Loading /> : null}
      {h ? (
        <>
          <div className="legend">
            <span>
              <i style={{ background: 'rgba(99,102,241,.8)' }} />
              Clicks ({h.totalClicks})
            </span>
            <span>
              <i style={{ background: 'rgba(220,38,38,.85)' }} />
              Rage clicks
            </span>
            <span>
              <i style={{ background: 'rgba(234,179,8,.9)' }} />
              Dead clicks
            </span>
          </div>
          <div
            className="heatmap"
            role="img"
            aria-label={`Click heatmap of ${h.url}: ${h.totalClicks} clicks`}
            style={screenshot ? { backgroundImage: `url("${screenshot.replace(/"/g, '%22')}")` } : undefined}
          >
            {h.points.map((p) => {
              const size = 14 + 30 * Math.sqrt(p.count / top);
              const color =
                p.rageClicks > 0
                  ? 'rgba(220,38,38,.55)'
                  : p.deadClicks > 0
                    ? 'rgba(234,179,8,.6)'
                    : 'rgba(99,102,241,.45)';
              return (
                <span
                  key={`${p.x}:${p.y}:${p.selector}`}
                  className="heat-dot"
                  style={{
                    left: `${(100 * p.x) / maxX}%`,
                    top: `${(100 * p.y) / maxY}%`,
                    width: size,
                    height: size,
                    background: color,
                  }}
                />
              );
            })}
          </div>
          <table className="table" aria-label="Clicked elements">
            <thead>
              <tr>
                <th scope="col">Element</th>
                <th scope="col" className="num">
                  Clicks
                </th>
                <th scope="col" className="num">
                  Rage
                </th>
                <th scope="col" className="num">
                  Dead
                </th>
              </tr>
            </thead>
            <tbody>
              {h.elements.length === 0 ? (
                <tr>
                  <td colSpan={4} className="muted">
                    No clicks recorded on this page in this range.
                  </td>
                </tr>
              ) : (
                h.elements.slice(0, 50).map((el) => (
                  <tr key={el.selector}>
                    <td>
                      <code>{el.selector}</code>
                    </td>
                    <td className="num">{el.clicks}</td>
                    <td className="num">{el.rageClicks}</td>
                    <td className="num">{el.deadClicks}</td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </>
      ) : null}
    </div>
  );
}
