import { Navigate } from 'react-router';
import type { Feature } from '../../app/feature';
import { lazyPage } from '../../app/lazy-page';

export const settings: Feature = {
  nav: { to: '/settings', label: 'Settings', icon: '⚙' },
  routes: [
    { path: 'settings', element: <Navigate to="/settings/team" replace /> },
    { path: 'settings/:tab', element: lazyPage(() => import('./settings-page')) },
  ],
};
