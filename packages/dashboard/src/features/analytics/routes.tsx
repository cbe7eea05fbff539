import type { Feature } from '../../app/feature';
import { lazyPage } from '../../app/lazy-page';

const page = lazyPage(() => import('./analytics-page'));

export const analytics: Feature = {
  nav: { to: '/analytics', label: 'Analytics', icon: '▦' },
  routes: [
    { path: 'analytics', element: page },
    { path: 'analytics/:tab', element: page },
  ],
};
