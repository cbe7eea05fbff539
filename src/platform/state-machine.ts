import { invalidTransition } from './errors.js';

/**
 * A resource's lifecycle as one table: for each action, the states it may start from ('any'
 * for every state) and the state it leads to. `apply` is the only place a transition is
 * checked; anything the table does not allow is 409 INVALID_STATE_TRANSITION `{ from, action }`.
 */
export interface TransitionRule<S extends string> {
  from: readonly S[] | 'any';
  to: S | ((from: S) => S);
}

export function transitionTable<S extends string, A extends string>(rules: Record<A, TransitionRule<S>>) {
  return {
    rules,
    /** True when `action` may run from `from`. */
    allows(from: S, action: A): boolean {
      const rule = rules[action];
      return rule.from === 'any' || rule.from.includes(from);
    },
    /** The state after `action`, or throws INVALID_STATE_TRANSITION. */
    apply(from: S, action: A): S {
      if (!this.allows(from, action)) throw invalidTransition(from, action);
      const { to } = rules[action];
      return typeof to === 'function' ? to(from) : to;
    },
  };
}
export type TransitionTable<S extends string, A extends string> = ReturnType<typeof transitionTable<S, A>>;

/**
 * The states an action may start from, for bulk conditional updates (`WHERE status IN (...)`);
 * `all` lists every state, for an action allowed from 'any'.
 */
export function sourceStates<S extends string, A extends string>(
  table: TransitionTable<S, A>,
  action: A,
  all: readonly S[],
): S[] {
  const { from } = table.rules[action];
  return from === 'any' ? [...all] : [...from];
}

/** What a state change writes besides the status (records with `publishedAt` and `archivedAt`). */
export interface StateColumns<S extends string> {
  status: S;
  updatedAt: Date;
  publishedAt?: Date;
  archivedAt?: Date | null;
}

/**
 * The columns of a change from `from` (or from any of several states, for a bulk move) to `to`:
 * the status, updatedAt, when it was published or archived, and archivedAt cleared on leaving
 * ARCHIVED.
 */
export function stateColumns<S extends string>(from: S | readonly S[], to: S, now: Date): StateColumns<S> {
  const leavesArchive =
    to !== 'ARCHIVED' && (typeof from === 'string' ? [from] : from).includes('ARCHIVED' as S);
  return {
    status: to,
    updatedAt: now,
    ...(to === 'PUBLISHED' ? { publishedAt: now } : {}),
    ...(to === 'ARCHIVED' ? { archivedAt: now } : {}),
    ...(leavesArchive ? { archivedAt: null } : {}),
  };
}
