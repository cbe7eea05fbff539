// Every domain's tables, one file per domain. Migrations in ../migrations are the source of
// truth for the database; these drizzle definitions mirror them for typed queries.

export * from './ai.js';
export * from './analytics.js';
export * from './audiences.js';
export * from './content.js';
export * from './events.js';
export * from './experiments.js';
export * from './flows.js';
export * from './journeys.js';
export * from './platform.js';
export * from './pricing.js';
export * from './privacy.js';
export * from './sdk.js';
export * from './targeting.js';
export * from './translations.js';
export * from './versions.js';
export * from './webhooks.js';
