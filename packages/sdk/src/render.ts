import type { Env } from './env.js';
import type { ContentRecord } from './wire.js';

/** What a content renderer gets (types only: lazy chunks import this without code). */
export interface RenderCtx {
  env: Env;
  /** `contentId`, `contentType` and the journey context: every event of the item carries them. */
  props: Record<string, unknown>;
  cancelled(): boolean;
  /** The item is on screen: CONTENT_RENDERED. */
  shown(): void;
  /** Takes the item down, reporting how it ended (FLOW_DISMISSED / FLOW_COMPLETED; nothing for null). */
  end(state: 'dismissed' | 'completed' | null, extra?: Record<string, unknown>): void;
}

export type Cleanup = () => void;
export type Renderer<T extends ContentRecord> = (ctx: RenderCtx, record: T) => Cleanup;
