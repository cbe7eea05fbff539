import { describe, expect, it } from 'vitest';
import {
  canvasSchema,
  goalConfigSchema,
  JOURNEY_CONTENT_TYPES,
  journeyEdgeSchema,
  journeyNodeSchema,
  journeySettingsSchema,
  MAX_EDGES,
  MAX_NODES,
  MAX_SPLIT_BRANCHES,
  MAX_WAIT_MS,
  MIN_WAIT_MS,
  reentrySchema,
} from './schemas.js';

const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const pos = { x: 10, y: -20.5 };

const issues = (
  schema: { safeParse(v: unknown): { success: boolean; error?: { issues: unknown[] } } },
  v: unknown,
) => {
  const r = schema.safeParse(v);
  return r.success
    ? []
    : (r.error!.issues as { path: (string | number)[]; message: string }[]).map((i) => ({
        path: i.path.join('.'),
        message: i.message,
      }));
};
const paths = (schema: Parameters<typeof issues>[0], v: unknown) => issues(schema, v).map((i) => i.path);

describe('journey node schema', () => {
  it('accepts every trigger type with its triggerConfig', () => {
    const triggers = [
      { triggerType: 'CUSTOM_EVENT', triggerConfig: { eventName: 'signed_up' } },
      { triggerType: 'URL_MATCH', triggerConfig: { pattern: '/projects' } },
      { triggerType: 'URL_MATCH', triggerConfig: { matchType: 'regex', pattern: '^/p/\\d+$' } },
      { triggerType: 'ELEMENT_CLICK', triggerConfig: { selector: '#create-project' } },
      { triggerType: 'MANUAL', triggerConfig: {} },
    ];
    for (const config of triggers) {
      expect(journeyNodeSchema.parse({ type: 'TRIGGER', config, position: pos })).toEqual({
        type: 'TRIGGER',
        config,
        position: pos,
      });
    }
    // MANUAL's triggerConfig defaults to {}
    expect(
      journeyNodeSchema.parse({ type: 'TRIGGER', config: { triggerType: 'MANUAL' }, position: pos }),
    ).toEqual({
      type: 'TRIGGER',
      config: { triggerType: 'MANUAL', triggerConfig: {} },
      position: pos,
    });
  });

  it('refuses a trigger config that does not fit its type, at the precise path', () => {
    const trigger = (config: unknown) => ({ type: 'TRIGGER', config, position: pos });
    expect(paths(journeyNodeSchema, trigger({ triggerType: 'CUSTOM_EVENT', triggerConfig: {} }))).toEqual([
      'config.triggerConfig.eventName',
    ]);
    expect(
      paths(journeyNodeSchema, trigger({ triggerType: 'CUSTOM_EVENT', triggerConfig: { eventName: ' ' } })),
    ).toEqual(['config.triggerConfig.eventName']);
    expect(
      paths(journeyNodeSchema, trigger({ triggerType: 'URL_MATCH', triggerConfig: { selector: 'a' } })),
    ).toEqual(['config.triggerConfig.pattern']);
    expect(
      issues(
        journeyNodeSchema,
        trigger({ triggerType: 'URL_MATCH', triggerConfig: { matchType: 'regex', pattern: '(a+)+$' } }),
      ),
    ).toEqual([
      { path: 'config.triggerConfig.pattern', message: 'regex pattern could backtrack catastrophically' },
    ]);
    expect(paths(journeyNodeSchema, trigger({ triggerType: 'ELEMENT_CLICK', triggerConfig: {} }))).toEqual([
      'config.triggerConfig.selector',
    ]);
    expect(
      paths(
        journeyNodeSchema,
        trigger({ triggerType: 'ELEMENT_CLICK', triggerConfig: { selector: 'a'.repeat(1001) } }),
      ),
    ).toEqual(['config.triggerConfig.selector']);
    expect(paths(journeyNodeSchema, trigger({ triggerType: 'SCHEDULE', triggerConfig: {} }))).toEqual([
      'config.triggerType',
    ]);
    expect(
      paths(
        journeyNodeSchema,
        trigger({ triggerType: 'CUSTOM_EVENT', triggerConfig: { eventName: 'x'.repeat(256) } }),
      ),
    ).toEqual(['config.triggerConfig.eventName']);
  });

  it('CONTENT needs a known contentType and a uuid contentId; other types drop contentId', () => {
    for (const contentType of JOURNEY_CONTENT_TYPES) {
      expect(
        journeyNodeSchema.parse({
          type: 'CONTENT',
          config: { contentType },
          contentId: ID(1),
          position: pos,
        }),
      ).toMatchObject({ contentId: ID(1) });
    }
    expect(
      paths(journeyNodeSchema, { type: 'CONTENT', config: { contentType: 'flow' }, position: pos }),
    ).toEqual(['contentId']);
    expect(
      paths(journeyNodeSchema, {
        type: 'CONTENT',
        config: { contentType: 'flow' },
        contentId: 'x',
        position: pos,
      }),
    ).toEqual(['contentId']);
    expect(
      paths(journeyNodeSchema, {
        type: 'CONTENT',
        config: { contentType: 'flows' },
        contentId: ID(1),
        position: pos,
      }),
    ).toEqual(['config.contentType']);
    const wait = journeyNodeSchema.parse({
      type: 'WAIT',
      config: { duration: 60_000 },
      contentId: ID(1),
      position: pos,
    });
    expect(wait).not.toHaveProperty('contentId');
  });

  it('WAIT and WAIT_FOR_EVENT take whole milliseconds within bounds', () => {
    const wait = (duration: unknown) => ({ type: 'WAIT', config: { duration }, position: pos });
    expect(paths(journeyNodeSchema, wait(MIN_WAIT_MS))).toEqual([]);
    expect(paths(journeyNodeSchema, wait(MAX_WAIT_MS))).toEqual([]);
    for (const bad of [MIN_WAIT_MS - 1, MAX_WAIT_MS + 1, 1500.5, '60000', null, -1]) {
      expect(paths(journeyNodeSchema, wait(bad))).toEqual(['config.duration']);
    }
    const wfe = (config: unknown) => ({ type: 'WAIT_FOR_EVENT', config, position: pos });
    expect(journeyNodeSchema.parse(wfe({ eventName: 'paid' }))).toMatchObject({
      config: { eventName: 'paid' },
    });
    expect(journeyNodeSchema.parse(wfe({ eventName: 'paid', timeout: 86_400_000 }))).toMatchObject({
      config: { eventName: 'paid', timeout: 86_400_000 },
    });
    expect(paths(journeyNodeSchema, wfe({ timeout: 5000 }))).toEqual(['config.eventName']);
    expect(paths(journeyNodeSchema, wfe({ eventName: 'paid', timeout: 10 }))).toEqual(['config.timeout']);
  });

  it('CONDITION takes an audience rule tree, checked as audiences check it', () => {
    const condition = (ruleTree: unknown) => ({ type: 'CONDITION', config: { ruleTree }, position: pos });
    expect(
      paths(journeyNodeSchema, condition({ field: 'traits.plan', operator: 'eq', value: 'pro' })),
    ).toEqual([]);
    expect(
      paths(
        journeyNodeSchema,
        condition({ logicalOperator: 'OR', rules: [{ field: 'traits.plan', operator: 'like', value: 'p' }] }),
      ),
    ).toEqual(['config.ruleTree.rules.0.operator']);
    expect(paths(journeyNodeSchema, { type: 'CONDITION', config: {}, position: pos })).toEqual([
      'config.ruleTree',
    ]);
  });

  it('SPLIT takes 2 to 10 branches with distinct labels and whole percentages', () => {
    const split = (branches: unknown) => ({ type: 'SPLIT', config: { branches }, position: pos });
    const two = [
      { label: 'A', percentage: 50 },
      { label: 'B', percentage: 50 },
    ];
    expect(paths(journeyNodeSchema, split(two))).toEqual([]);
    // the sum is publish's business: a draft may be unbalanced
    expect(
      paths(
        journeyNodeSchema,
        split([
          { label: 'A', percentage: 10 },
          { label: 'B', percentage: 10 },
        ]),
      ),
    ).toEqual([]);
    expect(paths(journeyNodeSchema, split([{ label: 'A', percentage: 100 }]))).toEqual(['config.branches']);
    const eleven = Array.from({ length: MAX_SPLIT_BRANCHES + 1 }, (_, i) => ({
      label: `b${i}`,
      percentage: 0,
    }));
    expect(paths(journeyNodeSchema, split(eleven))).toEqual(['config.branches']);
    expect(paths(journeyNodeSchema, split([two[0], { label: 'A', percentage: 50 }]))).toEqual([
      'config.branches.1.label',
    ]);
    expect(paths(journeyNodeSchema, split([two[0], { label: 'B', percentage: 50.5 }]))).toEqual([
      'config.branches.1.percentage',
    ]);
    expect(paths(journeyNodeSchema, split([two[0], { label: 'B', percentage: 101 }]))).toEqual([
      'config.branches.1.percentage',
    ]);
    expect(paths(journeyNodeSchema, split([two[0], { label: '', percentage: 50 }]))).toEqual([
      'config.branches.1.label',
    ]);
  });

  it('GOAL_CHECK and EXIT take {} (config optional, unknown keys stripped)', () => {
    for (const type of ['GOAL_CHECK', 'EXIT']) {
      expect(journeyNodeSchema.parse({ type, position: pos })).toEqual({ type, config: {}, position: pos });
      expect(journeyNodeSchema.parse({ type, config: { x: 1 }, position: pos })).toEqual({
        type,
        config: {},
        position: pos,
      });
    }
  });

  it('checks id, type and position of every node', () => {
    const exit = { type: 'EXIT', config: {}, position: pos };
    expect(journeyNodeSchema.parse({ ...exit, id: ID(7).toUpperCase() }).id).toBe(ID(7));
    expect(paths(journeyNodeSchema, { ...exit, id: 'node-1' })).toEqual(['id']);
    expect(paths(journeyNodeSchema, { ...exit, type: 'DELAY' })).toEqual(['type']);
    expect(paths(journeyNodeSchema, { ...exit, position: { x: 1 } })).toEqual(['position.y']);
    expect(paths(journeyNodeSchema, { ...exit, position: { x: 1e7, y: 0 } })).toEqual(['position.x']);
    expect(paths(journeyNodeSchema, { ...exit, position: { x: Number.NaN, y: 0 } })).toEqual(['position.x']);
    expect(paths(journeyNodeSchema, { type: 'EXIT', config: {} })).toEqual(['position']);
  });
});

describe('journey edge and canvas schemas', () => {
  const exit = (n: number) => ({ id: ID(n), type: 'EXIT', config: {}, position: pos });
  const wait = (n: number) => ({ id: ID(n), type: 'WAIT', config: { duration: 60_000 }, position: pos });

  it('edges are { sourceNodeId, targetNodeId, label? } with bounded labels', () => {
    expect(journeyEdgeSchema.parse({ sourceNodeId: ID(1), targetNodeId: ID(2) })).toEqual({
      sourceNodeId: ID(1),
      targetNodeId: ID(2),
    });
    expect(
      paths(journeyEdgeSchema, { sourceNodeId: ID(1), targetNodeId: 'x', label: 'a'.repeat(101) }),
    ).toEqual(['targetNodeId', 'label']);
  });

  it('accepts a canvas whose edges name its nodes, in any letter case', () => {
    const canvas = {
      nodes: [wait(1), exit(2)],
      edges: [{ sourceNodeId: ID(1).toUpperCase(), targetNodeId: ID(2) }],
    };
    expect(canvasSchema.parse(canvas).edges).toEqual([{ sourceNodeId: ID(1), targetNodeId: ID(2) }]);
  });

  it('refuses edges to nodes outside the body (or without an id) and duplicate node ids', () => {
    const noId = { type: 'EXIT', config: {}, position: pos };
    expect(
      paths(canvasSchema, {
        nodes: [wait(1), noId, wait(1)],
        edges: [
          { sourceNodeId: ID(1), targetNodeId: ID(9) },
          { sourceNodeId: ID(8), targetNodeId: ID(1) },
        ],
      }),
    ).toEqual(['nodes.2.id', 'edges.0.targetNodeId', 'edges.1.sourceNodeId']);
  });

  it('reports node shape errors at nodes.<i> (graph rules wait for publish)', () => {
    expect(
      paths(canvasSchema, {
        nodes: [exit(1), { id: ID(2), type: 'WAIT', config: {}, position: pos }],
        edges: [],
      }),
    ).toEqual(['nodes.1.config.duration']);
    // no TRIGGER, unreachable nodes, unlabelled CONDITION edges: all fine for a draft
    expect(
      paths(canvasSchema, {
        nodes: [exit(1), exit(2)],
        edges: [{ sourceNodeId: ID(1), targetNodeId: ID(2) }],
      }),
    ).toEqual([]);
  });

  it('bounds the number of nodes and edges', () => {
    const nodes = Array.from({ length: MAX_NODES + 1 }, () => ({ type: 'EXIT', position: pos }));
    expect(paths(canvasSchema, { nodes, edges: [] })).toEqual(['nodes']);
    const edges = Array.from({ length: MAX_EDGES + 1 }, () => ({ sourceNodeId: ID(1), targetNodeId: ID(1) }));
    expect(paths(canvasSchema, { nodes: [wait(1)], edges })).toEqual(['edges']);
  });
});

describe('goal config schema', () => {
  it('accepts each goal type with its config and an optional deadline in days', () => {
    const goals = [
      { type: 'event', config: { eventName: 'project_created' }, deadline: 7 },
      { type: 'page_visit', config: { pattern: '/billing' } },
      { type: 'page_visit', config: { matchType: 'glob', pattern: '/p/*/settings' } },
      {
        type: 'attribute_match',
        config: { ruleTree: { field: 'traits.plan', operator: 'eq', value: 'pro' } },
      },
      { type: 'flow_completed', config: { flowId: ID(3) }, deadline: 30 },
    ];
    for (const goal of goals) expect(goalConfigSchema.parse(goal)).toEqual(goal);
  });

  it('takes a single rule as shorthand for { ruleTree } in attribute_match', () => {
    expect(
      goalConfigSchema.parse({
        type: 'attribute_match',
        config: { field: 'traits.plan', operator: 'eq', value: 'pro' },
      }),
    ).toEqual({
      type: 'attribute_match',
      config: { ruleTree: { field: 'traits.plan', operator: 'eq', value: 'pro' } },
    });
  });

  it('refuses bad configs and deadlines at their paths', () => {
    expect(paths(goalConfigSchema, { type: 'event', config: {} })).toEqual(['config.eventName']);
    expect(
      paths(goalConfigSchema, { type: 'page_visit', config: { matchType: 'exact', pattern: '/' } }),
    ).toEqual(['config.matchType']);
    expect(paths(goalConfigSchema, { type: 'flow_completed', config: { flowId: 'x' } })).toEqual([
      'config.flowId',
    ]);
    expect(
      paths(goalConfigSchema, { type: 'attribute_match', config: { ruleTree: { field: 'traits.a' } } }),
    ).toEqual(['config.ruleTree.operator']);
    expect(paths(goalConfigSchema, { type: 'conversion', config: {} })).toEqual(['type']);
    for (const deadline of [0, -1, 1.5, 3651]) {
      expect(paths(goalConfigSchema, { type: 'event', config: { eventName: 'x' }, deadline })).toEqual([
        'deadline',
      ]);
    }
  });
});

describe('journey settings', () => {
  it('reentry defaults to never; other settings are kept', () => {
    expect(journeySettingsSchema.parse({})).toEqual({ reentry: 'never' });
    expect(journeySettingsSchema.parse({ reentry: 'after_exit', theme: 'dark' })).toEqual({
      reentry: 'after_exit',
      theme: 'dark',
    });
    expect(journeySettingsSchema.parse({ reentry: { cooldownMs: 86_400_000 } })).toEqual({
      reentry: { cooldownMs: 86_400_000 },
    });
  });

  it('refuses unknown reentry modes and bad cooldowns', () => {
    expect(issues(reentrySchema, 'always')).toEqual([
      { path: '', message: 'reentry is "never", "after_exit" or { cooldownMs }' },
    ]);
    expect(paths(reentrySchema, {})).toEqual(['']);
    expect(paths(reentrySchema, { cooldownMs: -1 })).toEqual(['cooldownMs']);
    expect(paths(reentrySchema, { cooldownMs: 1.5 })).toEqual(['cooldownMs']);
    expect(paths(journeySettingsSchema, { reentry: 'sometimes' })).toEqual(['reentry']);
  });
});
