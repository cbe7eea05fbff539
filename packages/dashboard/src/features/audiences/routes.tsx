import type { Feature } from '../../app/feature';
import { lazyPage } from '../../app/lazy-page';

export const audiences: Feature = {
  nav: { to: '/audiences', label: 'Audiences', icon: '◎' },
  routes: [
    { path: 'audiences', element: lazyPage(() => import('./audiences-page')) },
    { path: 'audiences/:id', element: lazyPage(() => import('./audience-editor-page')) },
  ],
};
