import type { Feature } from '../../app/feature';
import { lazyPage } from '../../app/lazy-page';

export const webhooks: Feature = {
  nav: { to: '/webhooks', label: 'Webhooks', icon: '↗' },
  routes: [
    { path: 'webhooks', element: lazyPage(() => import('./webhooks-page')) },
    { path: 'webhooks/:id', element: lazyPage(() => import('./webhook-page')) },
  ],
};
