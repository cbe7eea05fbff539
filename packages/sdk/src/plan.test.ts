import { describe, expect, it } from 'vitest';
import { planSession } from './plan.js';
import type { ContentRecord, Flow, SessionResponse } from './wire.js';

const id = (n: number) => `0190a000-0000-7000-8000-${String(n).padStart(12, '0')}`;

const AT = '2026-01-01T00:00:00.000Z';
const TENANT = id(0);
const SITE = id(1);

const flow = (n: number, trigger: Flow['trigger'] = null): Flow => ({
  id: id(n),
  tenantId: TENANT,
  siteId: SITE,
  name: `Flow ${n}`,
  description: null,
  template: 'PRODUCT_TOUR',
  status: 'PUBLISHED',
  audienceId: null,
  trigger,
  settings: {},
  scheduledAt: null,
  expiresAt: null,
  priority: 0,
  bypassCaps: false,
  publishedAt: AT,
  archivedAt: null,
  createdAt: AT,
  updatedAt: AT,
  steps: [],
});

const tooltip = (n: number): ContentRecord => ({
  id: id(n),
  tenantId: TENANT,
  siteId: SITE,
  contentType: 'tooltips',
  name: `Tip ${n}`,
  status: 'PUBLISHED',
  audienceId: null,
  priority: 0,
  bypassCaps: false,
  publishedAt: AT,
  archivedAt: null,
  createdAt: AT,
  updatedAt: AT,
  triggerConfig: { type: 'time_on_page', delay: 5000 },
  targetSelector: '#x',
  content: { text: 'hi' },
  position: 'AUTO',
  targetUrl: null,
});

const session = (over: Partial<SessionResponse['data']>): SessionResponse['data'] => ({
  sessionId: id(999),
  endUserId: null,
  flows: [],
  content: [],
  experiments: [],
  journeys: [],
  ...over,
});

describe('planSession: plain payloads', () => {
  it('starts URL_MATCH and trigger-less flows by themselves, MANUAL ones only on demand', () => {
    const plan = planSession(
      session({
        flows: [
          flow(1, { type: 'URL_MATCH', config: { pattern: '/a' } }),
          flow(2, { type: 'MANUAL', config: {} }),
          flow(3, null),
        ],
      }),
    );
    expect(plan.flows.map((f) => [f.flow.id, f.auto])).toEqual([
      [id(1), true],
      [id(2), false],
      [id(3), true],
    ]);
    expect(plan.flows.every((f) => Object.keys(f.context).length === 0)).toBe(true);
  });

  it('keeps content in the service order, waiting for its own trigger, with no context', () => {
    const plan = planSession(session({ content: [tooltip(10), tooltip(11)] }));
    expect(plan.content.map((c) => [c.record.id, c.immediate, c.context])).toEqual([
      [id(10), false, {}],
      [id(11), false, {}],
    ]);
    expect(plan.missing).toEqual([]);
  });
});

describe('planSession: experiments', () => {
  it("attaches experimentId and variantId to the variant's flow only", () => {
    const plan = planSession(
      session({
        flows: [flow(1), flow(2)],
        experiments: [{ experimentId: id(50), variantId: id(51), flowId: id(2) }],
      }),
    );
    expect(plan.flows.find((f) => f.flow.id === id(2))!.context).toEqual({
      experimentId: id(50),
      variantId: id(51),
    });
    expect(plan.flows.find((f) => f.flow.id === id(1))!.context).toEqual({});
    expect(plan.variants).toEqual({ [id(50)]: id(51) });
  });

  it('remembers the variant of a control group (no flow) for conversions, and shows nothing for it', () => {
    const plan = planSession(
      session({ experiments: [{ experimentId: id(60), variantId: id(61), flowId: null }] }),
    );
    expect(plan.flows).toEqual([]);
    expect(plan.variants).toEqual({ [id(60)]: id(61) });
  });
});

describe('planSession: journeys', () => {
  const journey = (contentType: string, contentId: string, n = 70) => ({
    journeyId: id(n),
    enrollmentId: id(n + 1),
    nodeId: id(n + 2),
    visit: 1,
    contentType,
    contentId,
  });

  it('shows a journey flow now (even a MANUAL one), first, with the journey context', () => {
    const plan = planSession(
      session({
        flows: [flow(1), flow(2, { type: 'MANUAL', config: {} })],
        journeys: [journey('flow', id(2))],
      }),
    );
    expect(plan.flows[0]).toMatchObject({
      flow: { id: id(2) },
      auto: true,
      context: { journeyId: id(70), enrollmentId: id(71), nodeId: id(72) },
    });
    expect(plan.flows[1]!.flow.id).toBe(id(1));
  });

  it('shows journey content immediately (not at its own trigger), first, with the journey context', () => {
    const plan = planSession(
      session({ content: [tooltip(10), tooltip(11)], journeys: [journey('tooltip', id(11))] }),
    );
    expect(plan.content.map((c) => [c.record.id, c.immediate])).toEqual([
      [id(11), true],
      [id(10), false],
    ]);
    expect(plan.content[0]!.context).toEqual({ journeyId: id(70), enrollmentId: id(71), nodeId: id(72) });
  });

  it('finds the record whatever the contentType says, and reports entries whose record is not in the payload', () => {
    const missing = journey('tooltips', id(404), 80);
    const plan = planSession(session({ flows: [flow(1)], journeys: [journey('tooltips', id(1)), missing] }));
    expect(plan.flows[0]!.context).toMatchObject({ journeyId: id(70) });
    expect(plan.missing).toEqual([missing]);
  });

  it('combines a journey with an experiment on the same flow', () => {
    const plan = planSession(
      session({
        flows: [flow(1, { type: 'MANUAL' })],
        experiments: [{ experimentId: id(50), variantId: id(51), flowId: id(1) }],
        journeys: [journey('FLOW', id(1))],
      }),
    );
    expect(plan.flows[0]).toMatchObject({
      auto: true,
      context: { experimentId: id(50), variantId: id(51), journeyId: id(70), nodeId: id(72) },
    });
  });
});
