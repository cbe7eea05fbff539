import { lazy, type ReactNode, Suspense } from 'react';
import { createBrowserRouter, Navigate } from 'react-router';
import { Layout } from './layout';
import { AcceptInvite, ForgotPassword, ResetPassword, SignIn, SignUp } from './pages/auth';
import { Loading } from './ui';

// Every signed-in page is its own chunk: the first paint loads only the shell and the sign-in page.
const FlowsList = lazy(() => import('./pages/flows'));
const FlowEditor = lazy(() => import('./pages/flow-editor'));
const Audiences = lazy(() => import('./pages/audiences'));
const AudienceEditor = lazy(() => import('./pages/audience-editor'));
const Content = lazy(() => import('./pages/content'));
const ContentEditor = lazy(() => import('./pages/content-editor'));
const Translations = lazy(() => import('./pages/translations'));
const Analytics = lazy(() => import('./pages/analytics'));
const Settings = lazy(() => import('./pages/settings'));
const Journeys = lazy(() => import('./pages/journeys'));
const JourneyCanvas = lazy(() => import('./pages/journey'));
const Experiments = lazy(() => import('./pages/experiments'));
const Experiment = lazy(() => import('./pages/experiment'));
const Soon = lazy(() => import('./pages/soon'));

const page = (node: ReactNode) => <Suspense fallback={<Loading />}>{node}</Suspense>;

export const router = createBrowserRouter([
  { path: '/signin', element: <SignIn /> },
  { path: '/signup', element: <SignUp /> },
  { path: '/forgot-password', element: <ForgotPassword /> },
  { path: '/reset-password/:token', element: <ResetPassword /> },
  { path: '/invite/:token', element: <AcceptInvite /> },
  {
    path: '/',
    element: <Layout />,
    children: [
      { index: true, element: <Navigate to="/flows" replace /> },
      { path: 'flows', element: page(<FlowsList />) },
      { path: 'flows/:id', element: page(<FlowEditor />) },
      { path: 'content', element: <Navigate to="/content/tooltips" replace /> },
      { path: 'content/:type', element: page(<Content />) },
      { path: 'content/:type/:id', element: page(<ContentEditor />) },
      { path: 'audiences', element: page(<Audiences />) },
      { path: 'audiences/:id', element: page(<AudienceEditor />) },
      { path: 'journeys', element: page(<Journeys />) },
      { path: 'journeys/:id', element: page(<JourneyCanvas />) },
      { path: 'experiments', element: page(<Experiments />) },
      { path: 'experiments/:id', element: page(<Experiment />) },
      { path: 'analytics', element: page(<Analytics />) },
      { path: 'analytics/:tab', element: page(<Analytics />) },
      { path: 'translations', element: page(<Translations />) },
      { path: 'settings', element: <Navigate to="/settings/team" replace /> },
      { path: 'settings/:tab', element: page(<Settings />) },
      { path: '*', element: page(<Soon what="Not found" />) },
    ],
  },
]);
