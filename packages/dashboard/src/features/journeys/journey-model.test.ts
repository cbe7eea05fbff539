import { describe, expect, it } from 'vitest';
import {
  canvasBody,
  edgeLabels,
  edgeOf,
  errorsByNode,
  type JNode,
  type NodeData,
  newNode,
  nextEdgeLabel,
  summary,
  toFlow,
} from './journey-model';

const node = (id: string, data: Partial<NodeData> & Pick<NodeData, 'type'>, y = 0): JNode => ({
  id,
  type: 'journey',
  position: { x: 10.4, y },
  data: { config: {}, contentId: null, ...data },
});

describe('the journey canvas model', () => {
  it('labels a new edge with the next label its source needs', () => {
    const condition = node('c', { type: 'CONDITION' });
    expect(nextEdgeLabel(condition, [])).toBe('true');
    expect(nextEdgeLabel(condition, [edgeOf('c', 'x', 'true')])).toBe('false');
    expect(nextEdgeLabel(condition, [edgeOf('c', 'x', 'true'), edgeOf('c', 'y', 'false')])).toBeNull();
    const split = node('s', { type: 'SPLIT', config: { branches: [{ label: 'A' }, { label: 'B' }] } });
    expect(nextEdgeLabel(split, [edgeOf('s', 'x', 'A'), edgeOf('other', 'y', 'B')])).toBe('B');
    expect(edgeLabels({ type: 'WAIT_FOR_EVENT', config: {} })).toEqual(['event']);
    expect(edgeLabels({ type: 'WAIT_FOR_EVENT', config: { timeout: 1000 } })).toEqual(['event', 'timeout']);
    expect(edgeLabels({ type: 'EXIT', config: {} })).toEqual([]);
    expect(nextEdgeLabel(node('w', { type: 'WAIT' }), [])).toBeNull();
  });

  it('sends the canvas as the API takes it: rounded positions, content ids only on CONTENT, labels only when set', () => {
    const nodes = [
      node('t', { type: 'TRIGGER', contentId: 'ignored' }),
      node('c', { type: 'CONTENT', config: { contentType: 'flow' }, contentId: 'f1' }, 99.6),
    ];
    const body = canvasBody(nodes, [edgeOf('t', 'c', null), { ...edgeOf('c', 't', 'x'), label: '' }]);
    expect(body.nodes).toEqual([
      { id: 't', type: 'TRIGGER', config: {}, contentId: undefined, position: { x: 10, y: 0 } },
      {
        id: 'c',
        type: 'CONTENT',
        config: { contentType: 'flow' },
        contentId: 'f1',
        position: { x: 10, y: 100 },
      },
    ]);
    expect(body.edges).toEqual([
      { sourceNodeId: 't', targetNodeId: 'c' },
      { sourceNodeId: 'c', targetNodeId: 't' },
    ]);
  });

  it('reads a journey into nodes and labelled edges', () => {
    const { nodes, edges } = toFlow({
      nodes: [
        { id: 'n1', type: 'WAIT', config: { duration: 60_000 }, contentId: null, position: { x: 1, y: 2 } },
      ],
      edges: [{ sourceNodeId: 'n1', targetNodeId: 'n2', label: 'true' }],
    } as never);
    expect(nodes[0]).toMatchObject({
      id: 'n1',
      type: 'journey',
      data: { type: 'WAIT', config: { duration: 60_000 } },
    });
    expect(edges[0]).toMatchObject({ id: 'n1->n2:true', source: 'n1', target: 'n2', label: 'true' });
  });

  it('puts each publish problem on its node, by id or by its index in the canvas sent', () => {
    const sent = [{ id: 'a' }, { id: 'b' }];
    const byNode = errorsByNode(
      [
        { path: 'nodes[1].config', message: 'needs an event name' },
        { nodeId: 'a', message: 'no way in' },
        { nodeId: 'a', message: 'no way out' },
        { path: 'edges[0]', message: 'about no node' },
      ],
      sent,
    );
    expect([...byNode]).toEqual([
      ['b', 'needs an event name'],
      ['a', 'no way in; no way out'],
    ]);
    expect(errorsByNode('not a list', sent).size).toBe(0);
  });

  it('places a new node below the lowest one, selected, with a copy of its type’s starting config', () => {
    const a = newNode('SPLIT', [node('x', { type: 'EXIT' }, 100)], 'new');
    expect(a).toMatchObject({
      id: 'new',
      position: { x: 240, y: 240 },
      selected: true,
      data: { type: 'SPLIT' },
    });
    const b = newNode('SPLIT', [], 'other');
    expect(b.position.y).toBe(40);
    (b.data.config.branches as { label: string }[])[0]!.label = 'changed';
    expect((newNode('SPLIT', [], 'third').data.config.branches as { label: string }[])[0]!.label).toBe('A');
  });

  it('summarises a node on one line', () => {
    expect(summary({ type: 'WAIT', config: { duration: 7_200_000 } })).toBe('2 hours');
    expect(summary({ type: 'WAIT_FOR_EVENT', config: { eventName: 'paid', timeout: 86_400_000 } })).toBe(
      'paid (≤ 1 day)',
    );
    expect(
      summary({ type: 'TRIGGER', config: { triggerType: 'URL_MATCH', triggerConfig: { pattern: '/x' } } }),
    ).toBe('URL_MATCH /x');
    expect(
      summary({ type: 'CONDITION', config: { ruleTree: { field: 'a', operator: 'eq', value: 1 } } }),
    ).toBe('1 rule');
    expect(
      summary({
        type: 'SPLIT',
        config: {
          branches: [
            { label: 'A', percentage: 70 },
            { label: 'B', percentage: 30 },
          ],
        },
      }),
    ).toBe('A 70% / B 30%');
  });
});
