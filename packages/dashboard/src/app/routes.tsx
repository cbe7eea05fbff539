import { lazy, type ReactNode, Suspense } from 'react';
import { createBrowserRouter, Navigate } from 'react-router';
import { AcceptInvite, ForgotPassword, ResetPassword, SignIn, SignUp } from '../features/auth/auth-pages';
import { Loading } from '../kit/ui';
import { Layout } from './layout';

// Every signed-in page is its own chunk: the first paint loads only the shell and the sign-in page.
const FlowsList = lazy(() => import('../features/flows/flows-page'));
const FlowEditor = lazy(() => import('../features/flows/flow-editor-page'));
const Audiences = lazy(() => import('../features/audiences/audiences-page'));
const AudienceEditor = lazy(() => import('../features/audiences/audience-editor-page'));
const Content = lazy(() => import('../features/content/content-page'));
const ContentEditor = lazy(() => import('../features/content/content-editor-page'));
const Translations = lazy(() => import('../features/translations/translations-page'));
const Analytics = lazy(() => import('../features/analytics/analytics-page'));
const Settings = lazy(() => import('../features/settings/settings-page'));
const Journeys = lazy(() => import('../features/journeys/journeys-page'));
const JourneyCanvas = lazy(() => import('../features/journeys/journey-page'));
const Experiments = lazy(() => import('../features/experiments/experiments-page'));
const Experiment = lazy(() => import('../features/experiments/experiment-page'));
const Soon = lazy(() => import('./not-found'));

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
