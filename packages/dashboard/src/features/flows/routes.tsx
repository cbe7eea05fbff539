import type { Feature } from '../../app/feature';
import { lazyPage } from '../../app/lazy-page';

export const flows: Feature = {
  nav: { to: '/flows', label: 'Flows', icon: '➜' },
  routes: [
    { path: 'flows', element: lazyPage(() => import('./flows-page')) },
    { path: 'flows/:id', element: lazyPage(() => import('./flow-editor-page')) },
  ],
};
