import { transitionTable } from '../../platform/state-machine.js';

/**
 * A member's lifecycle: a pending invite until accepted. Resending is only for a pending
 * invite; accepting (auth module) turns it into an active membership.
 */
export type MemberState = 'PENDING' | 'ACCEPTED';
export type MemberAction = 'resend-invite' | 'accept';

export const memberLifecycle = transitionTable<MemberState, MemberAction>({
  'resend-invite': { from: ['PENDING'], to: 'PENDING' },
  accept: { from: ['PENDING'], to: 'ACCEPTED' },
});

export const memberState = (m: { isPending: boolean }): MemberState => (m.isPending ? 'PENDING' : 'ACCEPTED');
