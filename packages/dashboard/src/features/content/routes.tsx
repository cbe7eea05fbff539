import { Navigate } from 'react-router';
import type { Feature } from '../../app/feature';
import { lazyPage } from '../../app/lazy-page';

export const content: Feature = {
  nav: { to: '/content', label: 'Content', icon: '▤' },
  routes: [
    { path: 'content', element: <Navigate to="/content/tooltips" replace /> },
    { path: 'content/:type', element: lazyPage(() => import('./content-page')) },
    { path: 'content/:type/:id', element: lazyPage(() => import('./content-editor-page')) },
  ],
};
