import type { Feature } from '../../app/feature';
import { lazyPage } from '../../app/lazy-page';

export const journeys: Feature = {
  nav: { to: '/journeys', label: 'Journeys', icon: '⇄' },
  routes: [
    { path: 'journeys', element: lazyPage(() => import('./journeys-page')) },
    { path: 'journeys/:id', element: lazyPage(() => import('./journey-page')) },
  ],
};
