import { z } from 'zod';
import type { ServiceCtx } from '../../platform/context.js';
import { createAudienceBody } from '../audiences/index.js';
import { inlineStepBody } from '../flows/index.js';
import { type AiDeps, withAi } from './access.js';
import { STEPS_EXAMPLE, stepsDraft } from './content-drafts.js';
import { descriptionPrompt, fenced, GENERATION_SYSTEM } from './prompts.js';
import type { AiClient } from './provider-client.js';
import { RULE_DRAFT_RULES, RULE_EXAMPLE, ruleDraft } from './rule-draft.js';
import { forwardIssues, type OutputDef, outputDef, promptLines, wireText } from './wire.js';

/**
 * Suggestions: steps for a flow toward a goal, and an audience rule from a plain description.
 * Each answer is defined once (`wire.ts`): the model is sent that definition's JSON schema, the
 * answer is parsed with it, then checked by the schema of the matching endpoint (flow steps as
 * POST /api/flows takes them, the audience as POST /api/audiences takes it). Nothing is persisted.
 */

const inlineSteps = z.array(inlineStepBody);

export const flowSuggestionOutput: OutputDef<{ suggestion: string; steps: z.output<typeof inlineSteps> }> =
  outputDef({
    name: 'flow_suggestion',
    draft: z.object({
      suggestion: wireText(2_000).describe('why these steps reach the goal'),
      steps: stepsDraft,
    }),
    example: { suggestion: 'Greet, then point at the button that starts it.', steps: STEPS_EXAMPLE as never },
    hints: [
      'Propose the steps of an in-app flow that gets users to the goal (3 to 7 is typical), and explain the idea in "suggestion".',
    ],
    finish(draft, ctx) {
      const parsed = inlineSteps.safeParse(draft.steps);
      if (!parsed.success) {
        forwardIssues(
          ctx,
          parsed.error.issues.map((i) => ({ ...i, path: ['steps', ...i.path] })),
        );
        return z.NEVER;
      }
      return { suggestion: draft.suggestion.trim(), steps: parsed.data };
    },
  });

export interface SuggestFlowInput {
  goal: string;
  pageUrl?: string | undefined;
  userSegment?: string | undefined;
}

function suggest<T>(
  client: AiClient,
  what: string,
  description: string,
  output: OutputDef<T>,
  extra: string[] = [],
) {
  return client.generateObject({
    system: GENERATION_SYSTEM,
    messages: [
      { role: 'user', content: descriptionPrompt(what, description, [...extra, ...promptLines(output)]) },
    ],
    schema: output.validated,
    modelSchema: output.modelSchema,
    name: output.name,
    rules: output.rules,
  });
}

export function suggestFlow(ctx: ServiceCtx, deps: AiDeps, input: SuggestFlowInput) {
  return withAi(ctx, deps, async (client) => {
    const extra = [
      ...(input.pageUrl ? [`The flow runs on this page: <context>${fenced(input.pageUrl)}</context>`] : []),
      ...(input.userSegment
        ? [`It is shown to these users: <context>${fenced(input.userSegment)}</context>`]
        : []),
    ];
    const result = await suggest(client, 'flow steps', input.goal, flowSuggestionOutput, extra);
    return { ...result, tokensUsed: client.tokensUsed };
  });
}

const audienceDraft = z.object({
  name: wireText(255),
  description: z.string().max(2_000).optional(),
  ruleTree: ruleDraft,
  explanation: z.string().max(2_000).optional().describe('how the rule reads, in plain words'),
});

export const audienceSuggestionOutput = outputDef({
  name: 'audience',
  draft: audienceDraft,
  rules: RULE_DRAFT_RULES,
  example: {
    name: 'Pro users on phones',
    ruleTree: RULE_EXAMPLE as z.output<typeof ruleDraft>,
    explanation: 'Users on the pro or business plan who use a phone.',
  },
  hints: [
    'The ruleTree is a rule {"field", "operator", "value"} or a group {"logicalOperator": "AND" | "OR" | "NOT", "rules": [...]}: groups of rules and of groups of rules.',
    'Operators: eq, neq, contains, not_contains, starts_with, ends_with (a value), gt, lt, gte, lte (a number or an ISO date), in, not_in (a list), exists, not_exists (no value), regex.',
  ],
  finish(draft, ctx) {
    const parsed = createAudienceBody.safeParse({
      name: draft.name,
      description: draft.description,
      ruleTree: draft.ruleTree,
    });
    if (!parsed.success) {
      forwardIssues(ctx, parsed.error.issues);
      return z.NEVER;
    }
    return { ...parsed.data, explanation: draft.explanation };
  },
});

export function suggestAudience(ctx: ServiceCtx, deps: AiDeps, description: string) {
  return withAi(ctx, deps, async (client) => {
    const result = await suggest(
      client,
      'an audience (a targeting rule)',
      description,
      audienceSuggestionOutput,
    );
    return {
      name: result.name,
      description: result.description ?? null,
      ruleTree: result.ruleTree as unknown as Record<string, unknown>,
      explanation: result.explanation ?? null,
      tokensUsed: client.tokensUsed,
    };
  });
}
