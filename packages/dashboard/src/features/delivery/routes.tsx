import { Navigate } from 'react-router';
import type { Feature } from '../../app/feature';
import { lazyPage } from '../../app/lazy-page';

export const delivery: Feature = {
  nav: { to: '/delivery', label: 'Delivery', icon: '⇅' },
  routes: [
    { path: 'delivery', element: <Navigate to="/delivery/policy" replace /> },
    { path: 'delivery/:tab', element: lazyPage(() => import('./delivery-page')) },
  ],
};
