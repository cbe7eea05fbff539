import type { Labels } from './labels.js';
import type { Context } from './plan.js';
import type { Root } from './ui/root.js';
import type { EventType } from './wire.js';

/** Names `Guidance.on()` accepts, with what their callbacks receive. */
export type GuidanceEventName =
  | 'flow:started'
  | 'flow:step'
  | 'flow:completed'
  | 'flow:dismissed'
  | 'flow:skipped'
  | 'content:shown'
  | 'content:dismissed'
  | 'survey:submitted';

/** A knowledge-base hit shown by the self-help widget. */
export interface HelpArticle {
  title: string;
  body?: string;
  url?: string;
}

/** What renderers need from the runtime (the runtime implements it; tests can fake it). */
export interface Env {
  root: Root;
  labels: Labels;
  /** Queues an analytics event; `properties` get the item's context added by the caller. */
  emit(type: EventType, properties: Record<string, unknown>): void;
  notify(name: GuidanceEventName, detail: Record<string, unknown>): void;
  on(name: GuidanceEventName, callback: (detail: Record<string, unknown>) => void): () => void;
  /** Starts a flow of the current session; false when it is not there. */
  startFlow(flowId: string, context?: Context): boolean;
  /** Remembers locally that an item was completed or dismissed (until the service knows). */
  markDone(itemId: string, state: 'completed' | 'dismissed'): void;
  /**
   * KNOWLEDGE-BASE SEARCH HOOK for the self-help widget: answers articles for a query, or null
   * when no search is available (then only the widget's own items are filtered). Today it is
   * `init({ searchKnowledgeBase })`; the service's AI module will add an SDK endpoint for it.
   */
  searchKnowledgeBase(query: string): Promise<HelpArticle[] | null>;
}
