import { Ajv2020 } from 'ajv/dist/2020.js';
import { createGeneratorSync } from 'json-schema-faker';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { minimalInstance as minimal, widestChoice } from '../../../test/helpers/wire-instances.js';
import type { CatalogEntry } from '../journeys/records.js';
import { journeyOutput } from './generate-journey.js';
import { contentOutput, GENERATION_TYPES } from './generation.js';
import { audienceSuggestionOutput, flowSuggestionOutput } from './suggest.js';
import { breakRule, type OutputDef, outputDef, repairMessage, ruleOf, wireText } from './wire.js';

/**
 * "The schema sent to the model is the validator": for every generation path, instances made
 * from the JSON schema the model is sent (by json-schema-faker, a generator driven by the schema
 * itself, and a minimal instance per `anyOf` alternative: required keys only, arrays at minItems,
 * strings at minLength) are accepted by the path's validator (its definition, then the create
 * schema, then the publish rules for journeys), or refused only for the cross-field rules listed
 * beside the definition, and then the repair turn names each rule broken. Every instance is first
 * checked against the wire schema by an independent validator (ajv), so a generator's slip is
 * not counted as ours.
 */

const SITE_ID = '0190a000-0000-7000-8000-0000000051e0';
const RANDOM = 200;
const ajv = new Ajv2020({ strict: false, allErrors: false });

type Json = Record<string, unknown>;
interface Verdict {
  instances: number;
  accepted: number;
  /** Refused only for listed rules, each named by the repair turn. */
  refusedByRules: number;
  /** Refused for anything else, or for a rule the repair turn does not name: the wire and the validator disagree. */
  mismatches: { instance: unknown; problems: string[] }[];
  /** Minimal instances accepted, out of those made. */
  minimal: { accepted: number; made: number; refusedFor: Set<string> };
}

function judge(def: OutputDef<unknown>, instance: unknown, verdict: Verdict, isMinimal: boolean) {
  verdict.instances++;
  const parsed = def.validated.safeParse(instance);
  if (isMinimal) verdict.minimal.made++;
  if (parsed.success) {
    verdict.accepted++;
    if (isMinimal) verdict.minimal.accepted++;
    return;
  }
  const issues = parsed.error.issues;
  const listed = new Map(def.rules.map((r) => [r.id, r]));
  const repair = repairMessage(issues, def.rules);
  const unlisted = issues.filter((i) => !listed.has(ruleOf(i) ?? ''));
  const unnamed = issues.flatMap((i) => {
    const rule = listed.get(ruleOf(i) ?? '');
    return rule && !repair.includes(rule.text) ? [rule.id] : [];
  });
  if (unlisted.length > 0 || unnamed.length > 0) {
    verdict.mismatches.push({
      instance,
      problems: [
        ...unlisted.map((i) => `${i.path.join('.')}: ${i.message}`),
        ...unnamed.map((r) => `rule ${r} not named by the repair turn`),
      ],
    });
  } else {
    verdict.refusedByRules++;
    if (isMinimal) for (const i of issues) verdict.minimal.refusedFor.add(ruleOf(i)!);
  }
}

/** Lets the worker's event loop turn (vitest's own messages) during a long synchronous check. */
const breathe = () => new Promise((resolve) => setImmediate(resolve));

/** Minimal instances, then `RANDOM` random ones, all valid per the wire schema, judged. */
async function check(def: OutputDef<unknown>, seed = 1): Promise<Verdict> {
  const schema = def.modelSchema as Json;
  const valid = ajv.compile(schema);
  const verdict: Verdict = {
    instances: 0,
    accepted: 0,
    refusedByRules: 0,
    mismatches: [],
    minimal: { accepted: 0, made: 0, refusedFor: new Set() },
  };
  for (let pick = 0; pick < widestChoice(schema); pick++) {
    const instance = minimal(schema, pick, seed + pick);
    expect(
      valid(instance),
      `minimal instance ${pick} fits the wire schema: ${ajv.errorsText(valid.errors)}`,
    ).toBe(true);
    judge(def, instance, verdict, true);
  }
  const faker = createGeneratorSync({ seed, maxDepth: 40, optionalsProbability: 0.5 });
  let made = 0;
  for (let tries = 0; made < RANDOM && tries < RANDOM * 5; tries++) {
    const instance = faker.generate(schema as never);
    if (!valid(instance)) continue; // the generator's slip, not a finding
    made++;
    if (made % 10 === 0) await breathe();
    judge(def, instance, verdict, false);
  }
  expect(made, 'random instances that fit the wire schema').toBe(RANDOM);
  console.info(
    `${def.name}: ${verdict.instances} instances (${verdict.minimal.made} minimal), ${verdict.accepted} accepted, ` +
      `${verdict.refusedByRules} refused for listed rules, ${verdict.mismatches.length} mismatches`,
  );
  return verdict;
}

const expectNoMismatch = (verdict: Verdict) =>
  expect(
    verdict.mismatches
      .slice(0, 3)
      .map((m) => ({ problems: m.problems, instance: JSON.stringify(m.instance).slice(0, 600) })),
  ).toEqual([]);

const CATALOG: CatalogEntry[] = [
  { contentType: 'flow', id: '0190a000-0000-7000-8000-00000000f001', name: 'Welcome tour' },
  { contentType: 'announcement', id: '0190a000-0000-7000-8000-00000000a001', name: 'Dark mode' },
  { contentType: 'announcement', id: '0190a000-0000-7000-8000-00000000a002', name: 'Pricing' },
  { contentType: 'nps-survey', id: '0190a000-0000-7000-8000-00000000b001', name: 'NPS' },
];

const CONTENT_TYPES = GENERATION_TYPES.filter((t) => t !== 'journey');

/** Every path whose minimal answer is a useful result as it is (journeys need their graph rules). */
const PATHS: [string, () => OutputDef<unknown>][] = [
  ['suggest-flow', () => flowSuggestionOutput],
  ['suggest-audience', () => audienceSuggestionOutput],
  ...CONTENT_TYPES.map((t): [string, () => OutputDef<unknown>] => [
    `generate-content ${t}`,
    () => contentOutput(t, SITE_ID),
  ]),
];

// ~5 s for a journey path on an idle machine; generous room for a shared one.
describe('the wire schema is the validator', { timeout: 120_000 }, () => {
  it.each(PATHS)(
    '%s: every instance of the wire schema is accepted, minimal ones included',
    async (_, make) => {
      const def = make();
      const verdict = await check(def);
      expectNoMismatch(verdict);
      expect(verdict.minimal.accepted).toBe(verdict.minimal.made);
      expect(verdict.instances).toBeGreaterThanOrEqual(RANDOM);
      // the random ones mostly pass: a rule broken now and then (min above max), never most
      expect(verdict.accepted).toBeGreaterThan(verdict.instances / 2);
    },
  );

  it.each([
    ['with content to show', CATALOG],
    ['in an empty workspace', []],
  ] as const)(
    'journey drafts %s: refused only for the graph rules, which the repair turn names',
    async (_, catalog) => {
      const def = journeyOutput(SITE_ID, [...catalog]);
      const verdict = await check(def);
      expectNoMismatch(verdict);
      expect(verdict.instances).toBeGreaterThanOrEqual(RANDOM);
      // a minimal draft (two nodes of one type, one edge) can only break graph rules
      expect(verdict.minimal.refusedFor.size).toBeGreaterThan(0);
    },
  );

  it.each([
    ...PATHS,
    ['journey', () => journeyOutput(SITE_ID, CATALOG)] as [string, () => OutputDef<unknown>],
  ])('%s: the example in the prompt fits the wire schema and is accepted', (_, make) => {
    const def = make();
    expect(ajv.validate(def.modelSchema as Json, def.example), ajv.errorsText(ajv.errors)).toBe(true);
    const parsed = def.validated.safeParse(def.example);
    expect(parsed.error?.issues ?? []).toEqual([]);
  });

  it('minimal answers are something a user would want: a flow has steps, a task list items, an audience a rule', () => {
    const first = (def: OutputDef<unknown>) =>
      def.validated.parse(minimal(def.modelSchema as Json, 0, 1)) as Json;
    const flow = first(contentOutput('flow', SITE_ID));
    expect((flow.steps as unknown[]).length).toBeGreaterThanOrEqual(1);
    expect(flow.steps).toEqual([
      expect.objectContaining({
        content: { title: expect.stringMatching(/\S/), body: expect.stringMatching(/\S/) },
      }),
    ]);
    const tasks = first(contentOutput('task-list', SITE_ID));
    expect((tasks.items as unknown[]).length).toBeGreaterThanOrEqual(1);
    const audience = first(audienceSuggestionOutput);
    expect(audience.ruleTree).toMatchObject({ field: expect.any(String), operator: expect.any(String) });
    const suggestion = first(flowSuggestionOutput);
    expect((suggestion.steps as unknown[]).length).toBeGreaterThanOrEqual(1);
  });
});

describe('the check itself', { timeout: 60_000 }, () => {
  // A planted mismatch: the validator refuses what the wire allows (a refinement JSON Schema does
  // not carry), and a rule the repair turn would not name. Both must be found.
  it('finds a validator stricter than its wire schema', async () => {
    const def = outputDef({
      name: 'planted',
      draft: z.object({ title: wireText(40).refine((t) => !t.includes('a'), 'no letter a') }),
      example: { title: 'x' },
    });
    const verdict = await check(def);
    expect(verdict.mismatches.length).toBeGreaterThan(0);
  });

  it('finds a rule the definition does not list', async () => {
    const unlisted = { id: 'unlisted', text: 'Titles may not repeat.' };
    const def = outputDef({
      name: 'planted',
      draft: z.object({ titles: z.array(wireText(3)).min(2).max(4) }).superRefine((d, ctx) => {
        if (new Set(d.titles).size !== d.titles.length) breakRule(ctx, unlisted, ['titles']);
        if (d.titles.some((t) => t.length > 2)) breakRule(ctx, unlisted, ['titles']);
      }),
      example: { titles: ['a', 'b'] },
    });
    expect((await check(def)).mismatches.length).toBeGreaterThan(0);
  });
});
