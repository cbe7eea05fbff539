/**
 * The structural diff of two snapshots of one item (pure: no I/O).
 *
 * A snapshot is a JSON object. Its collections (a flow's `steps`, a journey's `nodes` and
 * `edges`) are arrays of entries with an identity, compared entry by entry: added, removed,
 * changed (which fields) and, for ordered collections, moved. Every other key is a field,
 * compared to its leaves: nested objects are walked (`settings.color`, `body.title`), arrays
 * and scalars are compared whole. Object key order never matters (jsonb does not keep it).
 */

export interface DiffCollection {
  /** The snapshot key holding the array. */
  key: string;
  /** The identity of an entry (duplicates are told apart by their occurrence). */
  identity: (entry: Record<string, unknown>) => string;
  /** Whether the order of the entries means something (steps: yes; canvas nodes: no). */
  ordered: boolean;
}

export interface FieldChange {
  /** Dotted path from the snapshot (or the entry) root. */
  path: string;
  from: unknown;
  to: unknown;
}

export interface CollectionDiff {
  added: { id: string; index: number; entry: unknown }[];
  removed: { id: string; index: number; entry: unknown }[];
  /** Entries in both whose relative order changed (the fewest moves that explain the new order). */
  moved: { id: string; from: number; to: number }[];
  changed: { id: string; fields: FieldChange[] }[];
}

export interface SnapshotDiff {
  fields: FieldChange[];
  collections: Record<string, CollectionDiff>;
}

type Json = unknown;

const isObject = (v: Json): v is Record<string, Json> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The same JSON whatever the order of object keys; `undefined` reads as null, and a key whose
 * value is null as a missing key (as `fieldChanges` reads them: no change between the two).
 */
function canonical(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined && v !== null)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export const sameValue = (a: Json, b: Json) => canonical(a) === canonical(b);

/** Leaf differences between two values, objects walked key by key (keys sorted). */
export function fieldChanges(
  a: Json,
  b: Json,
  prefix = '',
  skip: ReadonlySet<string> = new Set(),
): FieldChange[] {
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !skip.has(k)).sort();
    return keys.flatMap((k) => fieldChanges(a[k] ?? null, b[k] ?? null, prefix ? `${prefix}.${k}` : k));
  }
  return sameValue(a, b) ? [] : [{ path: prefix, from: a ?? null, to: b ?? null }];
}

/** Identities of the entries, duplicates suffixed `#2`, `#3`, … by occurrence. */
function identities(entries: Record<string, unknown>[], identity: DiffCollection['identity']): string[] {
  const seen = new Map<string, number>();
  return entries.map((e) => {
    const id = identity(e);
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    return n === 1 ? id : `${id}#${n}`;
  });
}

/** Indices (into `seq`) of one longest strictly increasing subsequence. */
function longestIncreasing(seq: number[]): Set<number> {
  const tails: number[] = []; // index into seq of the smallest tail of each length
  const prev: number[] = new Array(seq.length).fill(-1);
  for (let i = 0; i < seq.length; i++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (seq[tails[mid]!]! < seq[i]!) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[i] = tails[lo - 1]!;
    tails[lo] = i;
  }
  const keep = new Set<number>();
  for (let i = tails.length ? tails[tails.length - 1]! : -1; i >= 0; i = prev[i]!) keep.add(i);
  return keep;
}

const entriesOf = (v: Json): Record<string, unknown>[] =>
  Array.isArray(v) ? v.map((e) => (isObject(e) ? e : { value: e })) : [];

export function diffCollection(a: Json, b: Json, collection: DiffCollection): CollectionDiff {
  const before = entriesOf(a);
  const after = entriesOf(b);
  const idsA = identities(before, collection.identity);
  const idsB = identities(after, collection.identity);
  const indexA = new Map(idsA.map((id, i) => [id, i]));
  const indexB = new Map(idsB.map((id, i) => [id, i]));
  const out: CollectionDiff = { added: [], removed: [], moved: [], changed: [] };
  idsA.forEach((id, i) => {
    if (!indexB.has(id)) out.removed.push({ id, index: i, entry: before[i] });
  });
  idsB.forEach((id, i) => {
    if (!indexA.has(id)) out.added.push({ id, index: i, entry: after[i] });
  });
  // Entries in both, in their new order; those outside a longest run kept in the old order moved.
  const common = idsB.filter((id) => indexA.has(id));
  if (collection.ordered) {
    const keep = longestIncreasing(common.map((id) => indexA.get(id)!));
    common.forEach((id, i) => {
      if (!keep.has(i)) out.moved.push({ id, from: indexA.get(id)!, to: indexB.get(id)! });
    });
  }
  for (const id of common) {
    const fields = fieldChanges(before[indexA.get(id)!], after[indexB.get(id)!]);
    if (fields.length > 0) out.changed.push({ id, fields });
  }
  return out;
}

export const emptyDiff = (d: SnapshotDiff) =>
  d.fields.length === 0 &&
  Object.values(d.collections).every(
    (c) => c.added.length + c.removed.length + c.moved.length + c.changed.length === 0,
  );

/** What changed from snapshot `a` to snapshot `b`. */
export function diffSnapshots(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  collections: readonly DiffCollection[] = [],
): SnapshotDiff {
  const keys = new Set(collections.map((c) => c.key));
  return {
    fields: fieldChanges(a, b, '', keys),
    collections: Object.fromEntries(collections.map((c) => [c.key, diffCollection(a[c.key], b[c.key], c)])),
  };
}

/** The collections of each versioned kind. */
export const DIFF_COLLECTIONS = {
  flow: [{ key: 'steps', identity: (s) => String(s.id), ordered: true }],
  journey: [
    { key: 'nodes', identity: (n) => String(n.id), ordered: false },
    {
      key: 'edges',
      identity: (e) => `${String(e.sourceNodeId)}->${String(e.targetNodeId)}`,
      ordered: false,
    },
  ],
  content: [],
  audience: [],
} satisfies Record<string, DiffCollection[]>;
