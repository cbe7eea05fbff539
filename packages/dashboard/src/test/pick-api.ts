import type { Routes } from './fake-api';

/**
 * The pick-token endpoints as a test of "Pick element" wants them (issue 40): the token for the
 * given target (`gpk_tok`, id `pick-1`), then one poll still pending and the pick after it.
 */
export function pickApi(
  target: { itemKind: 'flow' | 'content'; itemId: string; stepId: string | null },
  picked: { selector: string; fingerprint: Record<string, unknown> },
): Routes {
  let polls = 0;
  return {
    'POST /api/pick-tokens': () => ({
      status: 201,
      body: { data: { id: 'pick-1', token: 'gpk_tok', expiresAt: '2030-01-01T00:00:00Z', ...target } },
    }),
    'GET /api/pick-tokens/:id': () =>
      ++polls < 2
        ? { data: { status: 'pending', selector: null, fingerprint: null } }
        : { data: { status: 'picked', ...picked } },
  };
}
