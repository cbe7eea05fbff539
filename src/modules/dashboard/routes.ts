import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.js';
import { etagMatches } from '../../platform/http/static-assets.js';
import { DASHBOARD_DIST_DIR, type DashboardAsset, loadDashboardAssets } from './assets.js';

/** Hashed file names (`/assets/<name>-<hash>.<ext>`): a new build makes new names, so they never change. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The shell and the unhashed files: revalidated on every load (ETag → 304), so a deploy shows at once. */
export const REVALIDATE = 'no-cache';
/** A missing build is looked for again at most this often (it may be built after the server started). */
export const RELOAD_AFTER_MS = 5_000;

/**
 * Paths the dashboard never answers: the API, the API docs and the SDK keep their own 404s
 * (repeated slashes count as one: `//api//health` is an API path, not a page).
 */
export function isReservedPath(path: string): boolean {
  return /^\/(api|docs|sdk)(\/|$)/.test(path.replace(/\/{2,}/g, '/'));
}

/**
 * The dashboard web app at `/`: its files from `packages/dashboard/dist`, and `index.html` for
 * every other GET (the single-page app routes in the browser). Public, no database work, outside
 * `/api`; `/api`, `/docs` and `/sdk` are never shadowed (an unknown `/api/...` is the JSON 404).
 */
export const dashboardRoutes: FastifyPluginAsync<{ dir?: string; reloadAfterMs?: number }> = async (
  app,
  opts,
) => {
  const dir = opts.dir ?? DASHBOARD_DIST_DIR;
  const reloadAfterMs = opts.reloadAfterMs ?? RELOAD_AFTER_MS;
  let assets = loadDashboardAssets(dir);
  let checkedAt = Date.now();
  if (!assets.has('index.html')) {
    app.log.warn({ dir }, 'dashboard not built: / answers 503 until `npm run build:dashboard`');
  }
  const find = (name: string): DashboardAsset | undefined => {
    if (!assets.has('index.html') && Date.now() - checkedAt >= reloadAfterMs) {
      assets = loadDashboardAssets(dir);
      checkedAt = Date.now();
    }
    return assets.get(name);
  };

  const send = (request: FastifyRequest, reply: FastifyReply, asset: DashboardAsset, cache: string) => {
    reply.header('cache-control', cache).header('etag', asset.etag);
    if (etagMatches(request.headers['if-none-match'], asset.etag)) return reply.code(304).send();
    return reply.type(asset.contentType).send(asset.body);
  };

  const shell = (request: FastifyRequest, reply: FastifyReply) => {
    const index = find('index.html');
    if (!index) {
      throw new AppError('SERVICE_UNAVAILABLE', 'The dashboard is not built: run `npm run build:dashboard`');
    }
    return send(request, reply, index, REVALIDATE);
  };

  app.get('/', { schema: { hide: true } }, shell);

  app.get<{ Params: { '*': string } }>('/*', { schema: { hide: true } }, async (request, reply) => {
    const path = request.url.split('?')[0]!;
    if (isReservedPath(path)) return reply.callNotFound();
    const name = request.params['*'];
    if (name.startsWith('assets/')) {
      const asset = find(name);
      // a hashed file that is not in this build: a 404, never the shell (a stale tab must not run HTML as JS)
      if (!asset) throw new AppError('NOT_FOUND', `No dashboard file named ${name}`);
      return send(request, reply, asset, IMMUTABLE);
    }
    const file = name === 'index.html' ? undefined : find(name);
    if (file) return send(request, reply, file, REVALIDATE);
    // a file-looking path that is not in the build is a 404; any other path is a page of the app
    if (/\.[a-z0-9]{1,8}$/i.test(name)) throw new AppError('NOT_FOUND', `No dashboard file named ${name}`);
    return shell(request, reply);
  });
};
