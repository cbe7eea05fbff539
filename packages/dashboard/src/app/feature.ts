import type { RouteObject } from 'react-router';

/**
 * What a feature adds to the app (its `routes.tsx` exports one): an entry of the sidebar and its
 * pages. Signed-in pages are lazy chunks (`lazyPage`): the first paint loads only the shell and
 * the sign-in page.
 */
export interface Feature {
  /** Its link in the sidebar, in the order of `FEATURES`. */
  nav?: { to: string; label: string; icon: string };
  /** Pages inside the signed-in shell (paths relative to `/`). */
  routes?: RouteObject[];
  /** Pages outside it: signed-out visitors reach them (sign-in, invites). */
  publicRoutes?: RouteObject[];
}
