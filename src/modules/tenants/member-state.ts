import { transitionTable } from '../../platform/state-machine.js';

/**
 * A member's lifecycle: a pending invite until accepted. Resending is only for a pending
 * invite. Accepting (auth module) claims the invite token with a conditional UPDATE instead:
 * the token, not this table, decides whether an invite can still be accepted.
 */
type MemberState = 'PENDING' | 'ACCEPTED';

export const memberLifecycle = transitionTable<MemberState, 'resend-invite'>({
  'resend-invite': { from: ['PENDING'], to: 'PENDING' },
});

export const memberState = (m: { isPending: boolean }): MemberState => (m.isPending ? 'PENDING' : 'ACCEPTED');
