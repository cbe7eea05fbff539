import type { ModuleManifest } from '../deps.js';
import { aiModule } from './ai/index.js';
import { analyticsModule } from './analytics/index.js';
import { apiKeysModule } from './api-keys/index.js';
import { audiencesModule } from './audiences/index.js';
import { auditModule } from './audit/index.js';
import { authModule } from './auth/index.js';
import { browserSdkModule } from './browser-sdk/index.js';
import { contentModule } from './content/index.js';
import { dashboardModule } from './dashboard/index.js';
import { deliveryModule } from './delivery/index.js';
import { endUsersModule } from './end-users/index.js';
import { eventsModule } from './events/index.js';
import { experimentsModule } from './experiments/index.js';
import { flowsModule } from './flows/index.js';
import { healthModule } from './health/index.js';
import { journeysModule } from './journeys/index.js';
import { pricingModule } from './pricing/index.js';
import { privacyModule } from './privacy/index.js';
import { sdkModule } from './sdk/index.js';
import { targetingModule } from './targeting/index.js';
import { tenantsModule } from './tenants/index.js';
import { translationsModule } from './translations/index.js';
import { versionsModule } from './versions/index.js';
import { webhooksModule } from './webhooks/index.js';

/**
 * Every module of the service, in order. The order is data: routes register in it (the events
 * module before the SDK's, which uses its event log), and event effects run in it (end-user
 * activity before the effects that read end users; `checkEffectOrder` enforces every effect's
 * `runsAfter`).
 */
export const allModules: readonly ModuleManifest[] = [
  healthModule,
  authModule,
  tenantsModule,
  apiKeysModule,
  auditModule,
  pricingModule,
  versionsModule,
  audiencesModule,
  translationsModule,
  eventsModule,
  endUsersModule,
  deliveryModule,
  analyticsModule,
  webhooksModule,
  flowsModule,
  contentModule,
  targetingModule,
  experimentsModule,
  journeysModule,
  privacyModule,
  aiModule,
  sdkModule,
  browserSdkModule,
  dashboardModule,
];
