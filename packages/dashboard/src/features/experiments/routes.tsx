import type { Feature } from '../../app/feature';
import { lazyPage } from '../../app/lazy-page';

export const experiments: Feature = {
  nav: { to: '/experiments', label: 'Experiments', icon: '⚗' },
  routes: [
    { path: 'experiments', element: lazyPage(() => import('./experiments-page')) },
    { path: 'experiments/:id', element: lazyPage(() => import('./experiment-page')) },
  ],
};
