import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DIFF_COLLECTIONS, diffSnapshots, emptyDiff, sameValue } from './diff.js';

const step = (id: string, title = id, extra: Record<string, unknown> = {}) => ({
  id,
  type: 'tooltip',
  targetSelector: null,
  content: { title },
  settings: {},
  ...extra,
});
const flow = (steps: ReturnType<typeof step>[], fields: Record<string, unknown> = {}) => ({
  name: 'Tour',
  description: null,
  settings: { color: 'blue', size: 2 },
  steps,
  ...fields,
});

describe('diffSnapshots (unit)', () => {
  it('reads a key set to null as a missing key, in the diff and in sameValue alike', () => {
    // the property below found this pair (seed 835303527): an empty diff, yet not the same value
    const a = { name: '', settings: {}, steps: [] };
    const b = { name: '', settings: { '': null }, steps: [] };
    expect(emptyDiff(diffSnapshots(a, b, DIFF_COLLECTIONS.flow))).toBe(true);
    expect(sameValue(a, b)).toBe(true);
    expect(sameValue({ x: null }, { x: 0 })).toBe(false);
  });

  it('reports nothing between equal snapshots, whatever the key order', () => {
    const a = flow([step('a'), step('b')]);
    const b = JSON.parse(
      JSON.stringify({
        steps: a.steps,
        settings: { size: 2, color: 'blue' },
        name: 'Tour',
        description: null,
      }),
    );
    const d = diffSnapshots(a, b, DIFF_COLLECTIONS.flow);
    expect(emptyDiff(d)).toBe(true);
    expect(d.collections.steps).toEqual({ added: [], removed: [], moved: [], changed: [] });
  });

  it('walks nested fields to their leaves', () => {
    const d = diffSnapshots(
      flow([]),
      flow([], { name: 'New', settings: { color: 'red', size: 2, z: 1 } }),
      DIFF_COLLECTIONS.flow,
    );
    expect(d.fields).toEqual([
      { path: 'name', from: 'Tour', to: 'New' },
      { path: 'settings.color', from: 'blue', to: 'red' },
      { path: 'settings.z', from: null, to: 1 },
    ]);
  });

  it('tells steps added, removed, changed and moved apart', () => {
    const a = flow([step('a'), step('b'), step('c'), step('d')]);
    const b = flow([step('c'), step('a'), step('b', 'B!'), step('e')]);
    const d = diffSnapshots(a, b, DIFF_COLLECTIONS.flow).collections.steps!;
    expect(d.added.map((x) => [x.id, x.index])).toEqual([['e', 3]]);
    expect(d.removed.map((x) => [x.id, x.index])).toEqual([['d', 3]]);
    // a and b kept their relative order: only c moved (2 → 0).
    expect(d.moved).toEqual([{ id: 'c', from: 2, to: 0 }]);
    expect(d.changed).toEqual([{ id: 'b', fields: [{ path: 'content.title', from: 'b', to: 'B!' }] }]);
  });

  it('diffs journey nodes and edges (unordered)', () => {
    const node = (id: string, config: Record<string, unknown> = {}) => ({
      id,
      type: 'WAIT',
      config,
      position: { x: 0, y: 0 },
    });
    const a = {
      name: 'J',
      nodes: [node('t'), node('w', { ms: 1 })],
      edges: [{ sourceNodeId: 't', targetNodeId: 'w' }],
    };
    const b = {
      name: 'J',
      nodes: [node('w', { ms: 2 }), node('t'), node('x')],
      edges: [
        { sourceNodeId: 't', targetNodeId: 'w', label: 'yes' },
        { sourceNodeId: 'w', targetNodeId: 'x' },
      ],
    };
    const d = diffSnapshots(a, b, DIFF_COLLECTIONS.journey);
    expect(d.fields).toEqual([]);
    expect(d.collections.nodes!.moved).toEqual([]);
    expect(d.collections.nodes!.added.map((x) => x.id)).toEqual(['x']);
    expect(d.collections.nodes!.changed).toEqual([
      { id: 'w', fields: [{ path: 'config.ms', from: 1, to: 2 }] },
    ]);
    expect(d.collections.edges!.added.map((x) => x.id)).toEqual(['w->x']);
    expect(d.collections.edges!.changed).toEqual([
      { id: 't->w', fields: [{ path: 'label', from: null, to: 'yes' }] },
    ]);
  });

  it('treats a missing collection as empty and duplicate identities by occurrence', () => {
    const d = diffSnapshots(
      { name: 'x' },
      { name: 'x', steps: [step('a'), step('a')] },
      DIFF_COLLECTIONS.flow,
    );
    expect(d.collections.steps!.added.map((x) => x.id)).toEqual(['a', 'a#2']);
  });
});

// ---- properties ------------------------------------------------------------------------------

const json = fc.jsonValue({ maxDepth: 2 });
const stepArb = (id: string) =>
  fc.record({
    id: fc.constant(id),
    type: fc.constantFrom('tooltip', 'modal'),
    content: fc.dictionary(fc.string({ maxLength: 3 }), json, { maxKeys: 3 }),
  });
const flowArb = fc
  .uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'), { maxLength: 7 })
  .chain((ids) =>
    fc.record({
      name: fc.string({ maxLength: 4 }),
      settings: fc.dictionary(fc.string({ maxLength: 3 }), json, { maxKeys: 4 }),
      steps: fc.tuple(...ids.map(stepArb)).map((s) => [...s]),
    }),
  );

describe('diffSnapshots (properties)', () => {
  it('diff(a, a) is empty', () => {
    fc.assert(
      fc.property(flowArb, (a) => emptyDiff(diffSnapshots(a, structuredClone(a), DIFF_COLLECTIONS.flow))),
    );
  });

  it('is empty exactly when the snapshots are the same JSON', () => {
    fc.assert(
      fc.property(
        flowArb,
        flowArb,
        (a, b) => emptyDiff(diffSnapshots(a, b, DIFF_COLLECTIONS.flow)) === sameValue(a, b),
      ),
    );
  });

  it('swapping the sides swaps added and removed, and reverses every field change', () => {
    fc.assert(
      fc.property(flowArb, flowArb, (a, b) => {
        const ab = diffSnapshots(a, b, DIFF_COLLECTIONS.flow);
        const ba = diffSnapshots(b, a, DIFF_COLLECTIONS.flow);
        expect(ba.collections.steps!.added.map((x) => x.id)).toEqual(
          ab.collections.steps!.removed.map((x) => x.id),
        );
        expect(ba.fields).toEqual(ab.fields.map((f) => ({ path: f.path, from: f.to, to: f.from })));
        expect(ba.collections.steps!.moved.length).toBe(ab.collections.steps!.moved.length);
      }),
    );
  });

  it('a permutation of the steps is explained by moves alone, fewer than the steps', () => {
    fc.assert(
      fc.property(flowArb, fc.integer(), (a, seed) => {
        const steps = [...a.steps].sort(
          (x, y) => ((x.id.charCodeAt(0) * seed) % 7) - ((y.id.charCodeAt(0) * seed) % 7),
        );
        const d = diffSnapshots(a, { ...a, steps }, DIFF_COLLECTIONS.flow).collections.steps!;
        expect(d.added.length + d.removed.length + d.changed.length).toBe(0);
        expect(d.moved.length).toBeLessThanOrEqual(Math.max(0, a.steps.length - 1));
        expect(d.moved.length === 0).toBe(steps.every((s, i) => s.id === a.steps[i]!.id));
      }),
    );
  });
});
