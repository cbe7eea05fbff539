import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseExperiments, type RunningExperiment } from './delivery-contributor.js';
import { bucketOf, variantAtBucket } from './engine/assignment.js';

/** The session's experiment choice, pure: properties over generated experiments and users. */

const id = fc.uuid();
const variantArb = fc.record({ id, flowId: fc.option(id, { nil: null }) });

const experimentArb: fc.Arbitrary<RunningExperiment> = fc
  .record({
    id,
    audienceId: fc.option(fc.constantFrom('aud-in', 'aud-out'), { nil: null }),
    endDate: fc.option(fc.integer({ min: 0, max: 2_000 }), { nil: null }),
    variants: fc.array(variantArb, { minLength: 2, maxLength: 5 }),
    weights: fc.array(fc.integer({ min: 0, max: 10 }), { minLength: 5, maxLength: 5 }),
  })
  .map(({ id: eid, audienceId, endDate, variants, weights }) => {
    // splits in basis points summing to 10,000
    const w = variants.map((_, i) => weights[i]! + (i === 0 ? 1 : 0));
    const total = w.reduce((s, x) => s + x, 0);
    let left = 10_000;
    const bps = w.map((x, i) => {
      const bp = i === w.length - 1 ? left : Math.floor((x * 10_000) / total);
      left -= bp;
      return bp;
    });
    const vs = variants.map((v, i) => ({ ...v, splitPercentage: bps[i]! / 100 }));
    return {
      id: eid,
      seed: eid,
      audienceId,
      endDate,
      variants: vs,
      flowIds: [...new Set(vs.map((v) => v.flowId).filter((f): f is string => f !== null))],
    };
  });

const NOW = 1_000;
const facts = (endUserId: string | null) => ({
  endUserId,
  nowMs: NOW,
  inAudience: (a: string) => a === 'aud-in',
});

describe('chooseExperiments', () => {
  it('serves one variant per live experiment, never another variant’s flow, and stores only new assignments', () => {
    fc.assert(
      fc.property(
        fc.array(experimentArb, { maxLength: 5 }),
        fc.option(id, { nil: null }),
        fc.func(fc.boolean()),
        (running, endUserId, isAssigned) => {
          // some experiments already assign this user their last variant
          const assigned: Record<string, string> = {};
          for (const e of running) if (isAssigned(e.id)) assigned[e.id] = e.variants.at(-1)!.id;
          const choice = chooseExperiments(running, assigned, facts(endUserId));
          const withheld = new Set(choice.withhold ?? []);
          const listed = new Map((choice.experiments ?? []).map((x) => [x.experimentId, x]));
          expect(listed.size).toBe(choice.experiments?.length ?? 0);
          for (const e of running) {
            const entry = listed.get(e.id);
            const live = e.endDate === null || e.endDate > NOW;
            if (!live) {
              expect(entry).toBeUndefined();
              continue;
            }
            if (assigned[e.id]) {
              // stored: served whatever the audience or the hash says
              expect(entry?.variantId).toBe(assigned[e.id]);
            } else if (endUserId === null || e.audienceId === 'aud-out') {
              expect(entry).toBeUndefined();
            } else {
              const expected = variantAtBucket(bucketOf(e.seed, endUserId), e.variants);
              expect(entry?.variantId).toBe(expected);
            }
            if (entry) {
              const variant = e.variants.find((v) => v.id === entry.variantId)!;
              expect(entry.flowId).toBe(variant.flowId);
              for (const f of e.flowIds) {
                // the other variants' flows are withheld; the served one only if another experiment withholds it
                const elsewhere = running.some((o) => o !== e && o.flowIds.includes(f));
                if (f !== variant.flowId) expect(withheld.has(f)).toBe(true);
                else if (!elsewhere) expect(withheld.has(f)).toBe(false);
              }
            } else {
              for (const f of e.flowIds) expect(withheld.has(f)).toBe(true);
            }
          }
          // remembered: exactly the live, unassigned experiments the user was just assigned to
          const remembered = (choice.remember ?? []) as {
            experimentId: string;
            variantId: string;
            at: number;
          }[];
          for (const r of remembered) {
            expect(assigned[r.experimentId]).toBeUndefined();
            expect(listed.get(r.experimentId)?.variantId).toBe(r.variantId);
            expect(r.at).toBe(NOW);
          }
          const fresh = [...listed.keys()].filter((k) => !assigned[k]);
          expect(remembered.map((r) => r.experimentId).sort()).toEqual(fresh.sort());
        },
      ),
    );
  });

  it('is deterministic: the same inputs give the same choice', () => {
    fc.assert(
      fc.property(fc.array(experimentArb, { maxLength: 4 }), id, (running, user) => {
        expect(chooseExperiments(running, {}, facts(user))).toEqual(
          chooseExperiments(running, null, facts(user)),
        );
      }),
    );
  });

  it('chooses nothing without running experiments', () => {
    expect(chooseExperiments([], null, facts('u'))).toEqual({});
  });
});
