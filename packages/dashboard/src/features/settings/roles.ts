import type { Role } from '../../app/api';

/** The roles, least to most: what a member, an invite or an invite link can be given. */
export const ROLES: readonly Role[] = ['VIEWER', 'EDITOR', 'ADMIN', 'OWNER'];
