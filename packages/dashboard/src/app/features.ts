import { analytics } from '../features/analytics/routes';
import { audiences } from '../features/audiences/routes';
import { auth } from '../features/auth/routes';
import { content } from '../features/content/routes';
import { delivery } from '../features/delivery/routes';
import { endUsers } from '../features/end-users/routes';
import { experiments } from '../features/experiments/routes';
import { flows } from '../features/flows/routes';
import { journeys } from '../features/journeys/routes';
import { settings } from '../features/settings/routes';
import { targeting } from '../features/targeting/routes';
import { translations } from '../features/translations/routes';
import { webhooks } from '../features/webhooks/routes';
import type { Feature } from './feature';

/** Every feature of the dashboard, in the sidebar's order. A new feature is a folder and a line here. */
export const FEATURES: readonly Feature[] = [
  auth,
  flows,
  targeting,
  content,
  audiences,
  journeys,
  experiments,
  delivery,
  endUsers,
  analytics,
  translations,
  webhooks,
  settings,
];
