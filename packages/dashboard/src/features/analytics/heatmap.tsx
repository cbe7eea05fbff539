import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { api, must } from '../../app/api';
import { DataTable, Empty, Form, Loading, TextField } from '../../kit';
import type { Range } from './date-range';

const fetchHeatmap = async (url: string, range: Range) =>
  (await must(api.GET('/api/analytics/heatmaps', { params: { query: { url, ...range } } }))).data;
type Heat = Awaited<ReturnType<typeof fetchHeatmap>>;

/** A page's click heatmap: its URL (and a screenshot to draw over), the dots, the clicked elements. */
export function Heatmap({ range }: { range: Range }) {
  const [params, setParams] = useSearchParams();
  const url = params.get('url') ?? '';
  const screenshot = params.get('screenshot') ?? '';
  const [draftUrl, setDraftUrl] = useState(url);
  const [draftShot, setDraftShot] = useState(screenshot);
  const heat = useQuery({
    queryKey: ['analytics', 'heatmap', url, range],
    enabled: Boolean(url),
    queryFn: () => fetchHeatmap(url, range),
  });
  return (
    <div className="card pad" style={{ display: 'grid', gap: 16 }}>
      <Form
        className="row"
        onSubmit={() => {
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
      </Form>
      {!url ? (
        <Empty title="Pick a page">Enter the URL of a page of your app to see where users click.</Empty>
      ) : null}
      {heat.isPending && url ? <Loading /> : null}
      {heat.data ? <HeatmapPicture heat={heat.data} screenshot={screenshot} /> : null}
    </div>
  );
}

const COLORS = { click: 'rgba(99,102,241,.45)', rage: 'rgba(220,38,38,.55)', dead: 'rgba(234,179,8,.6)' };

/** Where a click dot goes (percentages of the page), how big it is (by its share of the top count), its colour. */
export function dotStyle(p: Heat['points'][number], all: Heat['points']) {
  const maxX = Math.max(1280, ...all.map((q) => q.x));
  const maxY = Math.max(800, ...all.map((q) => q.y));
  const top = Math.max(1, ...all.map((q) => q.count));
  const size = 14 + 30 * Math.sqrt(p.count / top);
  return {
    left: `${(100 * p.x) / maxX}%`,
    top: `${(100 * p.y) / maxY}%`,
    width: size,
    height: size,
    background: p.rageClicks > 0 ? COLORS.rage : p.deadClicks > 0 ? COLORS.dead : COLORS.click,
  };
}

function HeatmapPicture({ heat: h, screenshot }: { heat: Heat; screenshot: string }) {
  return (
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
        {h.points.map((p) => (
          <span key={`${p.x}:${p.y}:${p.selector}`} className="heat-dot" style={dotStyle(p, h.points)} />
        ))}
      </div>
      <DataTable
        label="Clicked elements"
        rows={h.elements.slice(0, 50)}
        rowKey={(el) => el.selector}
        emptyRow="No clicks recorded on this page in this range."
        columns={[
          { name: 'Element', cell: (el) => <code>{el.selector}</code> },
          { name: 'Clicks', num: true, cell: (el) => el.clicks },
          { name: 'Rage', num: true, cell: (el) => el.rageClicks },
          { name: 'Dead', num: true, cell: (el) => el.deadClicks },
        ]}
      />
    </>
  );
}
