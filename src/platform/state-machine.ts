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
