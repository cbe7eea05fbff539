import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ContributorChoice,
  candidatesOf,
  chooseSession,
  type ItemDecision,
  type ItemFilter,
  type Servable,
} from './choose-session.js';

const ids = ['i0', 'i1', 'i2', 'i3', 'i4', 'i5', 'i6', 'i7'];
const audiences = ['a0', 'a1', 'a2'];
const urls = ['https://x.test/a', 'https://x.test/a/b', 'https://y.test/c'];

const servable: fc.Arbitrary<Servable> = fc
  .record({
    id: fc.constantFrom(...ids),
    audienceId: fc.option(fc.constantFrom(...audiences, 'gone')),
    expiresAt: fc.option(fc.integer({ min: 0, max: 20 })),
    contains: fc.array(fc.constantFrom('x.test', '/a', 'y.'), { maxLength: 2 }),
    rule: fc.option(
      fc.record({
        pattern: fc.constantFrom('/a', '/b', 'https://x.test/a'),
        matchType: fc.constantFrom('contains' as const, 'equals' as const, 'starts_with' as const),
      }),
    ),
    onDemand: fc.boolean(),
  })
  .map((s) => ({
    ...s,
    urlBound: s.contains.length > 0 || s.rule !== null,
    priority: 0,
    publishedAt: 0,
    bypassCaps: false,
    autoStart: true,
    scopes: ['all'],
  }));

const choice: fc.Arbitrary<ContributorChoice> = fc.record(
  {
    withhold: fc.array(fc.constantFrom(...ids), { maxLength: 3 }),
    include: fc.array(fc.constantFrom(...ids), { maxLength: 3 }),
  },
  { requiredKeys: [] },
);

describe('chooseSession with candidates', () => {
  it('chooses exactly what it chooses without them', () => {
    fc.assert(
      fc.property(
        fc.array(servable, { maxLength: 8 }),
        fc.array(servable, { maxLength: 8 }),
        fc.option(fc.constantFrom(...urls), { nil: undefined }),
        fc.subarray(audiences),
        fc.integer({ min: 0, max: 20 }),
        fc.option(fc.record({ completed: fc.subarray(ids), dismissed: fc.subarray(ids) })),
        fc.record({ repeatCompleted: fc.boolean(), repeatDismissed: fc.boolean() }),
        fc.array(choice, { maxLength: 2 }),
        (flows, content, url, member, nowMs, states, frequency, choices) => {
          const items = { flows, content };
          const inAudience = (id: string) => member.includes(id);
          const filter: ItemFilter = {
            frequency,
            user: states && { completed: new Set(states.completed), dismissed: new Set(states.dismissed) },
            url,
            nowMs,
            inAudience,
          };
          const shared = candidatesOf(items, url, inAudience);
          const plain = chooseSession(items, filter, choices);
          expect(chooseSession(items, filter, choices, shared)).toEqual(plain);
          // The explanation is the same choice, with a reason for exactly the items left out.
          const explain: ItemDecision[] = [];
          expect(chooseSession(items, filter, choices, shared, undefined, explain)).toEqual(plain);
          expect(explain).toHaveLength(flows.length + content.length);
          for (const d of explain) {
            const chosen = (d.kind === 'flow' ? plain.flows : plain.content).includes(d.index);
            expect(d.reason === null).toBe(chosen);
          }
          // A policy that holds nothing back changes nothing.
          const neutral = chooseSession(items, filter, choices, shared, {
            policy: { caps: [], cooldownSeconds: 0, afterDismissDays: null },
            history: { served: [], dismissedAt: new Map() },
          });
          expect({ ...neutral, counted: undefined }).toEqual({ ...plain, counted: undefined });
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('chooseSession explanations', () => {
  const base = (id: string, over: Partial<Servable> = {}): Servable => ({
    id,
    audienceId: null,
    expiresAt: null,
    contains: [],
    rule: null,
    urlBound: false,
    onDemand: false,
    priority: 0,
    publishedAt: 0,
    bypassCaps: false,
    autoStart: true,
    scopes: ['all', 'flows'],
    ...over,
  });
  const filter: ItemFilter = {
    frequency: { repeatCompleted: false, repeatDismissed: false },
    user: null,
    url: 'https://x.test/a',
    nowMs: 10,
    inAudience: () => true,
  };

  it('names an experiment holdout and journey content that is not due', () => {
    const flows = [
      base('variant-b'),
      base('journey-step', { onDemand: true }),
      base('due', { onDemand: true }),
    ];
    const explain: ItemDecision[] = [];
    const choice = chooseSession(
      { flows, content: [] },
      filter,
      [{ withhold: ['variant-b'] }, { include: ['due'] }],
      undefined,
      undefined,
      explain,
    );
    expect(choice.flows).toEqual([2]);
    expect(explain.map((d) => [d.id, d.reason])).toEqual([
      ['variant-b', 'EXPERIMENT_HOLDOUT'],
      ['journey-step', 'JOURNEY_NOT_AT_STEP'],
      ['due', null],
    ]);
  });

  it('drops the journey entry of journey content the policy holds back', () => {
    const flows = [base('a', { priority: 1 }), base('j', { onDemand: true })];
    const choice = chooseSession(
      { flows, content: [] },
      filter,
      [
        {
          include: ['j'],
          journeys: [
            { journeyId: 'J', enrollmentId: 'E', nodeId: 'N', visit: 1, contentType: 'flow', contentId: 'j' },
          ],
        },
      ],
      undefined,
      {
        policy: {
          caps: [{ scope: 'flows', max: 1, per: 'session' }],
          cooldownSeconds: 0,
          afterDismissDays: null,
        },
        history: { served: [], dismissedAt: new Map() },
      },
    );
    expect(choice.flows).toEqual([0]);
    expect(choice.journeys).toEqual([]);
    expect(choice.counted).toEqual([{ id: 'a', scopes: ['all', 'flows'] }]);
  });
});
