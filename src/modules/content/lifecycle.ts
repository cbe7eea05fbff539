import { transitionTable } from '../../platform/state-machine.js';
import type { ContentStatus } from './store/records.js';

/**
 * The lifecycle of content items and NPS surveys, as one table (spec "States and transitions /
 * Content item", DECISIONS §6). The first four actions are the HTTP routes; `publishDue` and
 * `expire` are the scheduler's, and the bulk updates take their source states from here.
 * Archiving an archived record is a no-op (the service answers 200 without writing).
 */
export const contentLifecycle = transitionTable<
  ContentStatus,
  'publish' | 'unpublish' | 'archive' | 'restore' | 'publishDue' | 'expire'
>({
  publish: { from: ['DRAFT', 'SCHEDULED'], to: 'PUBLISHED' },
  unpublish: { from: ['PUBLISHED', 'SCHEDULED'], to: 'DRAFT' },
  archive: { from: 'any', to: 'ARCHIVED' },
  restore: { from: ['ARCHIVED'], to: 'DRAFT' },
  publishDue: { from: ['SCHEDULED'], to: 'PUBLISHED' },
  expire: { from: ['PUBLISHED', 'SCHEDULED'], to: 'ARCHIVED' },
});

export type ContentAction = 'publish' | 'unpublish' | 'archive' | 'restore';
export const CONTENT_ACTIONS: readonly ContentAction[] = ['publish', 'unpublish', 'archive', 'restore'];

/** Audit action and metadata of a state change. */
export function transitionAudit(from: ContentStatus, to: ContentStatus, action: string) {
  return {
    action: to === 'ARCHIVED' ? 'CONTENT_ARCHIVED' : 'CONTENT_UPDATED',
    metadata: { transition: { from, to, action } },
  };
}
