import type { CollectionDiff, FieldChange, VersionDiff } from './versions-api';

/** A value as one short line: strings as they are, the rest as compact JSON, nothing as "—". */
export function show(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value === '' ? '""' : value;
  return JSON.stringify(value);
}

/**
 * A step (or node) named by what a person recognises: its title, else its type, else its id; an
 * edge (`source->target`) by the nodes it joins (`from`: the older version's entries by id).
 */
function entryName(entry: unknown, id: string, from: Map<string, unknown>): string {
  if (entry && typeof entry === 'object' && 'sourceNodeId' in entry) {
    const e = entry as { sourceNodeId: string; targetNodeId: string; label?: string };
    const end = (nodeId: string) => entryName(from.get(nodeId), nodeId, from);
    return `${end(e.sourceNodeId)} → ${end(e.targetNodeId)}${e.label ? ` (${e.label})` : ''}`;
  }
  if (entry && typeof entry === 'object') {
    const e = entry as { type?: string; content?: { title?: unknown } };
    const title = typeof e.content?.title === 'string' ? e.content.title : undefined;
    if (title) return `“${title}”${e.type ? ` (${e.type.toLowerCase()})` : ''}`;
    if (e.type) return e.type.toLowerCase();
  }
  return id.slice(0, 8);
}

/** The differing fields: path, old value → new value. */
function Changes({ fields, label }: { fields: readonly FieldChange[]; label: string }) {
  return (
    <table className="table diff-table" aria-label={label}>
      <thead>
        <tr>
          <th>Field</th>
          <th>Before</th>
          <th>After</th>
        </tr>
      </thead>
      <tbody>
        {fields.map((f) => (
          <tr key={f.path}>
            <td className="diff-path">
              <code>{f.path}</code>
            </td>
            <td className="diff-old">{show(f.from)}</td>
            <td className="diff-new">{show(f.to)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A collection's changes (a flow's steps, a journey's nodes and edges): added, removed, moved, changed, in words. */
function Collection({
  name,
  diff,
  from,
}: {
  name: string;
  diff: CollectionDiff;
  from: Map<string, unknown>;
}) {
  const one = name.replace(/s$/, '');
  const label = (id: string, entry?: unknown) => entryName(entry ?? from.get(id), id, from);
  return (
    <section className="diff-collection" aria-label={`${name} changes`}>
      <h3 className="card-title">{name.charAt(0).toUpperCase() + name.slice(1)}</h3>
      <ul className="diff-list">
        {diff.added.map((a) => (
          <li key={`a${a.id}`}>
            <span className="badge badge-ok">added</span> {one} {a.index + 1}: {label(a.id, a.entry)}
          </li>
        ))}
        {diff.removed.map((r) => (
          <li key={`r${r.id}`}>
            <span className="badge badge-bad">removed</span> {one} {r.index + 1}: {label(r.id, r.entry)}
          </li>
        ))}
        {diff.moved.map((m) => (
          <li key={`m${m.id}`}>
            <span className="badge badge-warn">moved</span> {label(m.id)}: position {m.from + 1} → {m.to + 1}
          </li>
        ))}
        {diff.changed.map((c) => (
          <li key={`c${c.id}`}>
            <span className="badge badge-muted">changed</span> {label(c.id)}
            <Changes fields={c.fields} label={`Changes of ${one} ${label(c.id)}`} />
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * The structural diff of two versions, readable: the item's fields (old → new), then each
 * collection's entries added, removed, moved and changed. `fromSteps`: the older version's
 * entries by id, to name a moved or changed step by its title.
 */
export function DiffView({ diff, fromEntries }: { diff: VersionDiff; fromEntries?: Map<string, unknown> }) {
  const collections = Object.entries(diff.collections).filter(
    ([, c]) => c.added.length + c.removed.length + c.moved.length + c.changed.length > 0,
  );
  // Entries by id: the older version's, and those the newer one added (an added edge's new node).
  const known = new Map(fromEntries);
  for (const [, c] of collections) for (const a of c.added) if (!known.has(a.id)) known.set(a.id, a.entry);
  if (diff.fields.length === 0 && collections.length === 0)
    return (
      <p className="muted">
        Versions {diff.from} and {diff.to} are the same.
      </p>
    );
  return (
    <section className="diff" aria-label={`Changes from version ${diff.from} to ${diff.to}`}>
      {diff.fields.length > 0 ? (
        <Changes fields={diff.fields} label={`Fields changed from version ${diff.from} to ${diff.to}`} />
      ) : null}
      {collections.map(([name, c]) => (
        <Collection key={name} name={name} diff={c} from={known} />
      ))}
    </section>
  );
}
