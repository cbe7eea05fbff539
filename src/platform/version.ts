import { readFileSync } from 'node:fs';

/** The package version, read once at startup (reported by /api/health and the OpenAPI document). */
export const SERVICE_VERSION: string = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;
