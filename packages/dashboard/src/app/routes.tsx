import { createBrowserRouter, Navigate } from 'react-router';
import { FEATURES } from './features';
import { Layout } from './layout';
import { lazyPage } from './lazy-page';

/** The app's routes: each feature's public pages, then the signed-in shell with each feature's pages. */
export const router = createBrowserRouter([
  ...FEATURES.flatMap((f) => f.publicRoutes ?? []),
  {
    path: '/',
    element: <Layout />,
    children: [
      { index: true, element: <Navigate to="/flows" replace /> },
      ...FEATURES.flatMap((f) => f.routes ?? []),
      { path: '*', element: lazyPage(() => import('./not-found')) },
    ],
  },
]);
