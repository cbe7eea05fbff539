import type { Feature } from '../../app/feature';
import { lazyPage } from '../../app/lazy-page';

/** No sidebar link: "Needs attention" is reached from the flows and content lists (and an editor's notice). */
export const targeting: Feature = {
  routes: [{ path: 'flows/needs-attention', element: lazyPage(() => import('./needs-attention-page')) }],
};
