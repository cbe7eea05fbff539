import type { Executor } from '../../db/client.js';
import type { ContributorChoice, Servable, SessionFacts } from './engine/choose-session.js';
import type { SqlExpression } from './store.js';

/**
 * The delivery seam. A module that adds to what `POST /api/sdk/session` serves contributes a
 * `DeliveryContributor` in its manifest:
 * - `load` reads its part of a tenant's delivery snapshot (items to serve, data for its choice),
 *   once per snapshot, inside the snapshot's REPEATABLE READ transaction. The snapshot is cached
 *   until the tenant's delivery version moves: every table `load` reads must bump that version
 *   at commit (the triggers of migration 0014; add yours the same way).
 * - `userState` (optional) is the per end-user state its choice needs, read in the session's one
 *   lookup statement (no query of its own per session).
 * - `choose` (optional) is its pure per-session choice (experiment variants, journey content).
 * - `remember` (optional) stores what a choice decided for the first time (`remember` items of
 *   the choice), before the session answers: concurrent sessions' choices in one call, and it
 *   must be idempotent (two first sessions of one user may both remember the same thing). Only
 *   the first session of a decision writes; later ones read it back through `userState`. It
 *   answers, per entry, the choice as stored, which is what that session serves: unchanged when
 *   its decisions were stored, revised when a concurrent session's decision won. Journeys never
 *   answer an enrollment that was not stored; experiments answer the hashed variant, which every
 *   session of the user computes alike (an assignment skipped because the experiment stopped in
 *   between is served once more, then no longer).
 */

/** One item a contributor serves, with what the session needs to serve and translate it. */
export interface DeliveryItem {
  kind: 'flow' | 'content';
  servable: Servable;
  /** Priority: earlier first (published, else created, in ms), then id. */
  at: number;
  /** The record as the dashboard API shows it (wire form), `contentType` included for content. */
  record: Record<string, unknown>;
  /** Translation `contentType` names, lowest priority first (the canonical one last). */
  translationTypes: string[];
  /** Flow steps: their own translations (contentType `flow-step`, contentId = step id). */
  stepIds?: string[];
}

export interface DeliveryPart<Data = unknown> {
  items?: DeliveryItem[];
  /** Audiences the contributor's choice evaluates (items' audiences are collected by the cache). */
  audienceIds?: string[];
  /** What its `choose` reads, kept with the snapshot. */
  data?: Data;
}

export interface UserStateQuery<State> {
  /**
   * A scalar expression (one value, e.g. a `jsonb` built by a subquery over the contributor's own
   * tables, written in its store with drizzle's `sql`) of the state of end user `endUser` in
   * tenant `tenant`: both are expressions of the lookup statement, never values. Called once per
   * app: delivery renders the statement once and keeps it prepared, so the fragment's conditions
   * that a partial index needs are literals in its text.
   */
  sql(tenant: SqlExpression, endUser: SqlExpression): SqlExpression;
  /** The column's value as read (null when the session has no end user). */
  parse(value: unknown): State;
}

export interface DeliveryContributor<Data = unknown, State = unknown> {
  name: string;
  load(tx: Executor, tenantId: string): Promise<DeliveryPart<Data>>;
  userState?: UserStateQuery<State>;
  choose?(data: Data, state: State | null, facts: SessionFacts): ContributorChoice;
  /** One choice per entry, in the same order. */
  remember?(exec: Executor, entries: RememberEntry[]): Promise<ContributorChoice[]>;
}

/** One session's choice to remember (its `remember` items are what to store). */
export interface RememberEntry {
  tenantId: string;
  endUserId: string;
  choice: ContributorChoice;
}

declare module '../../deps.js' {
  interface SeamContracts {
    // biome-ignore lint/suspicious/noExplicitAny: each contributor has its own data and state types
    deliveryContributor: DeliveryContributor<any, any>;
  }
}
