import { z } from 'zod';
import type { ServiceCtx } from '../../platform/context.js';
import { createAudienceBody } from '../audiences/index.js';
import { inlineStepBody, MAX_FLOW_STEPS } from '../flows/index.js';
import { type AiDeps, withAi } from './access.js';
import { modelSchemaOf } from './model-schema.js';
import { descriptionPrompt, fenced, GENERATION_SYSTEM } from './prompts.js';

/**
 * Suggestions: steps for a flow toward a goal, and an audience rule from a plain description.
 * Like generation, answers are validated by the schemas the matching endpoints use (flow steps
 * as POST /api/flows takes them, the audience as POST /api/audiences takes it) and nothing is
 * persisted.
 */

const flowSuggestion = z.object({
  suggestion: z.string().trim().min(1).max(2_000).describe('why these steps reach the goal'),
  steps: z.array(inlineStepBody).min(1).max(Math.min(20, MAX_FLOW_STEPS)),
});

export interface SuggestFlowInput {
  goal: string;
  pageUrl?: string | undefined;
  userSegment?: string | undefined;
}

export function suggestFlow(ctx: ServiceCtx, deps: AiDeps, input: SuggestFlowInput) {
  return withAi(ctx, deps, async (client) => {
    const extra = [
      'Propose the steps of an in-app flow that gets users to the goal, and explain the idea in "suggestion". Give each step content {"title": string, "body": string}; steps pointing at an element need a targetSelector.',
      ...(input.pageUrl ? [`The flow runs on this page: <context>${fenced(input.pageUrl)}</context>`] : []),
      ...(input.userSegment
        ? [`It is shown to these users: <context>${fenced(input.userSegment)}</context>`]
        : []),
    ];
    const result = await client.generateObject({
      system: GENERATION_SYSTEM,
      messages: [{ role: 'user', content: descriptionPrompt('flow steps', input.goal, extra) }],
      schema: flowSuggestion,
      modelSchema: modelSchemaOf(flowSuggestion),
      name: 'flow_suggestion',
    });
    return { ...result, tokensUsed: client.tokensUsed };
  });
}

const audienceSuggestion = createAudienceBody.extend({
  explanation: z.string().trim().max(2_000).optional().describe('how the rule reads, in plain words'),
});

const RULE_SYNTAX = [
  'The ruleTree is a leaf {"field", "operator", "value"} or a group {"logicalOperator": "AND" | "OR" | "NOT", "rules": [nodes]}.',
  'Fields: userId, role, traits.<name> (for example traits.plan, traits.signupDate, traits.country), device.type (desktop, mobile, tablet), device.browser.',
  'Operators: eq, neq, gt, lt, gte, lte (numbers or ISO dates), contains, not_contains, in, not_in (value is an array), exists, not_exists (no value), regex, starts_with, ends_with.',
].join('\n');

export function suggestAudience(ctx: ServiceCtx, deps: AiDeps, description: string) {
  return withAi(ctx, deps, async (client) => {
    const result = await client.generateObject({
      system: GENERATION_SYSTEM,
      messages: [
        {
          role: 'user',
          content: descriptionPrompt('an audience (a targeting rule)', description, [RULE_SYNTAX]),
        },
      ],
      schema: audienceSuggestion,
      modelSchema: modelSchemaOf(audienceSuggestion),
      name: 'audience',
    });
    return {
      name: result.name,
      description: result.description ?? null,
      ruleTree: result.ruleTree as unknown as Record<string, unknown>,
      explanation: result.explanation ?? null,
      tokensUsed: client.tokensUsed,
    };
  });
}
