import type { JSONSchema7 } from 'ai';
import type { z } from 'zod';
import type { ServiceCtx } from '../../platform/context.js';

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
  /** Fields the model does not choose: references to other records, schedules, refused fields. */
  modelOmits: readonly string[];
  hints: readonly string[];
  preview(data: Record<string, unknown>): Preview;
  commit(ctx: ServiceCtx, body: Record<string, unknown>): Promise<Committed>;
  /**
   * For a type whose model answer is not its create body as is (a journey's nodes are named by
   * keys, not ids): the schema the answer is validated and turned into `aiData` with, the JSON
   * schema the model follows, and hints that depend on the tenant's data. Read inside the AI
   * call, after the usability checks.
   */
  modelOutput?(ctx: ServiceCtx, siteId: string): Promise<ModelOutput>;
}

export interface ModelOutput {
  validated: z.ZodType<Record<string, unknown>>;
  modelSchema: JSONSchema7;
  hints: string[];
}
