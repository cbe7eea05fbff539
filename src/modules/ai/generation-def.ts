import type { z } from 'zod';
import type { ServiceCtx } from '../../platform/context.js';
import type { CrossFieldRule, OutputDef } from './wire.js';

/** How the dashboard shows a draft before it is committed. */
export interface Preview {
  title: string;
  summary: string | null;
  items: string[];
}

export interface Committed {
  parentId: string;
  /** Only for types with children: flow steps (ids), survey questions (keys), task-list items (positions). */
  createdSubItemIds?: Record<string, (string | number)[]>;
}

export interface GenerationDef {
  /** "a product tour", for the prompt. */
  what: string;
  /** The matching create endpoint's body schema (it includes `siteId`). */
  createSchema: z.ZodObject;
  /**
   * What the model writes (`content-drafts.ts`): exact in JSON Schema, a subset of the create body
   * without `siteId`; the create schema runs on it afterwards. Unused by a type with `modelOutput`.
   */
  draft: z.ZodType<Record<string, unknown>>;
  /** The rules `draft` checks that JSON Schema cannot state (told in the prompt and the repair). */
  rules?: readonly CrossFieldRule[];
  /** A small valid answer, shown in the prompt. */
  example: unknown;
  hints: readonly string[];
  preview(data: Record<string, unknown>): Preview;
  commit(ctx: ServiceCtx, body: Record<string, unknown>): Promise<Committed>;
  /**
   * For a type whose model answer is not its create body as is (a journey's nodes are named by
   * keys, not ids) and depends on the tenant's data (the content a journey may show): the whole
   * output definition. Read inside the AI call, after the usability checks.
   */
  modelOutput?(ctx: ServiceCtx, siteId: string): Promise<OutputDef>;
}
