import { useState } from 'react';
import { Button, Loading, Notice } from '../../kit';
import { DiffView, show } from './version-diff';
import {
  useDiff,
  useVersion,
  type VersionSummary,
  type VersionTarget,
  versionErrorText,
} from './versions-api';

/** Two versions to compare: the one before the newest and the newest to start with, any two after. */
export function Compare({
  versions,
  onCompare,
}: {
  versions: readonly VersionSummary[];
  onCompare(pair: readonly [number, number]): void;
}) {
  const [from, setFrom] = useState(versions[1]?.version ?? versions[0]!.version);
  const [to, setTo] = useState(versions[0]!.version);
  if (versions.length < 2) return null;
  const pick = (label: string, value: number, set: (n: number) => void) => (
    <label className="compare-pick">
      <span>{label}</span>
      <select className="compare-select" value={value} onChange={(e) => set(Number(e.target.value))}>
        {versions.map((v) => (
          <option key={v.version} value={v.version}>
            v{v.version}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div className="compare">
      <span className="card-title">Compare</span>
      {pick('From', from, setFrom)}
      {pick('To', to, setTo)}
      <Button onClick={() => onCompare([from, to])} disabled={from === to}>
        Compare
      </Button>
    </div>
  );
}

/** The steps (a flow's) or nodes (a journey's) of a snapshot by id, to name a moved or changed one. */
const entriesOf = (snapshot: Record<string, unknown> | undefined) =>
  new Map(
    [snapshot?.steps, snapshot?.nodes]
      .flatMap((list) => (Array.isArray(list) ? (list as { id: string }[]) : []))
      .map((s) => [s.id, s] as const),
  );

/** One version's snapshot, or the diff of two, under the history. */
export function VersionView({
  target,
  shown,
}: {
  target: VersionTarget;
  shown: { view: number } | { diff: readonly [number, number] };
}) {
  const n = 'view' in shown ? shown.view : undefined;
  const pair = 'diff' in shown ? shown.diff : undefined;
  const version = useVersion(target, n ?? pair?.[1]);
  const diff = useDiff(target, pair);
  const query = pair ? diff : version;
  if (query.isPending) return <Loading />;
  if (query.isError) return <Notice kind="error">{versionErrorText(query.error)}</Notice>;
  if (pair && diff.data)
    return (
      <section className="card pad version-shown">
        <h3>
          Changes from v{diff.data.from} to v{diff.data.to}
        </h3>
        <DiffView diff={diff.data} fromEntries={entriesOf(version.data?.snapshot)} />
      </section>
    );
  const v = version.data!;
  const { steps, nodes, edges, ...fields } = v.snapshot;
  return (
    <section className="card pad version-shown" aria-label={`Version ${v.version}`}>
      <h3>Version {v.version}</h3>
      <dl className="snapshot">
        {Object.entries(fields).map(([key, value]) => (
          <div key={key}>
            <dt>{key}</dt>
            <dd>{show(value)}</dd>
          </div>
        ))}
      </dl>
      {Array.isArray(steps) ? (
        <ol className="snapshot-steps" aria-label="Steps">
          {(steps as { id: string; type: string; content?: Record<string, unknown> }[]).map((s) => (
            <li key={s.id}>
              <strong>{s.type.toLowerCase()}</strong> {show(s.content?.title ?? '')}
              {s.content?.body ? <span className="muted"> · {show(s.content.body)}</span> : null}
            </li>
          ))}
        </ol>
      ) : null}
      {Array.isArray(nodes) ? (
        <ol className="snapshot-steps" aria-label="Nodes">
          {(nodes as { id: string; type: string; config?: Record<string, unknown> }[]).map((n) => (
            <li key={n.id}>
              <strong>{n.type.toLowerCase()}</strong> <span className="muted">{show(n.config ?? {})}</span>
            </li>
          ))}
        </ol>
      ) : null}
      {Array.isArray(edges) ? (
        <p className="muted">
          {edges.length} edge{edges.length === 1 ? '' : 's'}
        </p>
      ) : null}
    </section>
  );
}
