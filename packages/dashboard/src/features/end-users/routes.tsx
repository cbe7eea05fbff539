import type { Feature } from '../../app/feature';
import { lazyPage } from '../../app/lazy-page';

export const endUsers: Feature = {
  nav: { to: '/end-users', label: 'End users', icon: '☺' },
  routes: [
    { path: 'end-users', element: lazyPage(() => import('./end-users-page')) },
    { path: 'end-users/:id', element: lazyPage(() => import('./end-user-page')) },
  ],
};
