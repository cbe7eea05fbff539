import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../platform/errors.js';
import { etagMatches } from '../../platform/http/static-assets.js';
import { loadSdkAssets, SDK_DIST_DIR, type SdkAsset } from './assets.js';

/** Browsers revalidate after this long (ETag → 304), so a new SDK reaches pages within minutes. */
const CACHE_CONTROL = 'public, max-age=300';
/** A missing build is looked for again at most this often (it may be built after the server started). */
export const RELOAD_AFTER_MS = 5_000;

/**
 * `GET /sdk/guidance.js` (and any lazy chunk under `/sdk/`): the browser SDK bundle, built from
 * `packages/sdk` (`npm run build:sdk`; `npm ci` and `npm start` build it). Public, no database
 * work, outside `/api` (no auth policy, not rate limited); CORS `*` comes from the CORS rules
 * (`platform/http/cors.ts`), since module scripts and `crossorigin` loads need it.
 */
export const browserSdkRoutes: FastifyPluginAsync<{ dir?: string; reloadAfterMs?: number }> = async (
  app,
  opts,
) => {
  const dir = opts.dir ?? SDK_DIST_DIR;
  const reloadAfterMs = opts.reloadAfterMs ?? RELOAD_AFTER_MS;
  let assets = loadSdkAssets(dir);
  let checkedAt = Date.now();
  if (!assets.has('guidance.js')) {
    app.log.warn({ dir }, 'browser SDK not built: /sdk/guidance.js answers 503 until `npm run build:sdk`');
  }

  const find = (name: string): SdkAsset | undefined => {
    const asset = assets.get(name);
    if (asset || assets.size > 0 || Date.now() - checkedAt < reloadAfterMs) return asset;
    assets = loadSdkAssets(dir);
    checkedAt = Date.now();
    return assets.get(name);
  };

  app.get<{ Params: { '*': string } }>('/sdk/*', { schema: { hide: true } }, async (request, reply) => {
    const name = request.params['*'];
    const asset = find(name);
    if (!asset) {
      if (assets.size === 0) {
        throw new AppError('SERVICE_UNAVAILABLE', 'The browser SDK is not built: run `npm run build:sdk`');
      }
      throw new AppError('NOT_FOUND', `No SDK file named ${name}`);
    }
    reply.header('cache-control', CACHE_CONTROL).header('etag', asset.etag);
    if (etagMatches(request.headers['if-none-match'], asset.etag)) return reply.code(304).send();
    return reply.type(asset.contentType).send(asset.body);
  });
};
