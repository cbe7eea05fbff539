import type { RouteOptions } from 'fastify';

type HookName = 'onRequest' | 'preValidation' | 'onSend';

/** Adds hooks to a route being declared (an `onRoute` hook), before or after the route's own. */
export function addRouteHooks(
  route: RouteOptions,
  name: HookName,
  hooks: unknown | unknown[],
  where: 'first' | 'last',
): void {
  const existing: unknown = route[name];
  const own = Array.isArray(existing) ? existing : existing ? [existing] : [];
  const added = Array.isArray(hooks) ? hooks : [hooks];
  // Each hook kind has its own handler type; the list is handed back to Fastify as it came.
  (route as Record<HookName, unknown>)[name] = where === 'first' ? [...added, ...own] : [...own, ...added];
}
