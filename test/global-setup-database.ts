import {
  createPgTemplate,
  PG_TEMPLATE_ENV,
  PGLITE_TEMPLATE_ENV,
  pgliteTemplate,
  serverDatabaseUrl,
} from './helpers/database.js';

/**
 * Migrates one template database per run (and per database kind) for the service project's
 * tests to copy: a test database then starts in a fraction of a second instead of running every
 * migration (test/helpers/database.ts). The test processes learn the templates from the
 * environment, which they inherit from this process.
 */
export default async function setup(): Promise<() => Promise<void>> {
  process.env[PGLITE_TEMPLATE_ENV] = await pgliteTemplate();
  const base = serverDatabaseUrl();
  if (!base) return async () => {};
  const template = await createPgTemplate(base);
  process.env[PG_TEMPLATE_ENV] = template.name;
  return () => template.drop();
}
