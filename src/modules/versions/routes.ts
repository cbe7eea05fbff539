import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { republishVersion, restoreVersion, type VersionedKind } from './kinds.js';
import { publishBody, versionDetail, versionDiff, versionList, versionNumber } from './schemas.js';
import { diffVersions, getVersion, listVersions } from './service.js';

const viewer = { auth: requireRole('VIEWER') };
const editor = { auth: requireRole('EDITOR') };

/**
 * The version routes of one kind, under its path: list, one snapshot, the diff of two, restore
 * (working copy from a snapshot) and, for publishable kinds, publish (roll back). Registered by
 * the owning module's routes.
 */
export function registerVersionRoutes<P extends { id: string }>(
  app: FastifyInstance,
  kind: VersionedKind<P>,
) {
  const api = app.withTypeProvider<never>() as unknown as Parameters<FastifyPluginAsyncZod>[0];
  const base = `${kind.path}/versions`;
  const tags = kind.tags;
  const op = (verb: string, what: string) =>
    kind.operationName ? { operationId: `${verb}${kind.operationName}${what}` } : {};
  const params = kind.params as unknown as z.ZodObject<z.ZodRawShape>;
  const withN = params.extend({ n: versionNumber });
  const withAB = params.extend({ a: versionNumber, b: versionNumber });
  const keyOf = async (request: { params: unknown }, ctx: ReturnType<typeof ctxOf>) => ({
    tenantId: ctx.tenantId,
    itemType: kind.itemType,
    itemId: await kind.find(ctx.db, ctx, request.params as P),
  });

  api.get(
    base,
    {
      config: viewer,
      schema: {
        tags,
        ...op('get', 'Versions'),
        summary: 'List versions (newest first)',
        params,
        response: { 200: versionList, ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const ctx = ctxOf(request);
      return { data: await listVersions(ctx.db, await keyOf(request, ctx)) };
    },
  );

  api.get(
    `${base}/:n`,
    {
      config: viewer,
      schema: {
        tags,
        ...op('get', 'Version'),
        summary: 'Get one version (its snapshot)',
        params: withN,
        response: { 200: versionDetail, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const ctx = ctxOf(request);
      const { n } = request.params as { n: number };
      return { data: await getVersion(ctx.db, await keyOf(request, ctx), n) };
    },
  );

  api.get(
    `${base}/:a/diff/:b`,
    {
      config: viewer,
      schema: {
        tags,
        ...op('get', 'VersionDiff'),
        summary: 'Compare two versions (fields; steps, nodes and edges added, removed, moved, changed)',
        params: withAB,
        response: { 200: versionDiff, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const ctx = ctxOf(request);
      const { a, b } = request.params as { a: number; b: number };
      const diff = await diffVersions(ctx.db, await keyOf(request, ctx), a, b);
      return { data: { from: a, to: b, ...diff } };
    },
  );

  api.post(
    `${base}/:n/restore`,
    {
      config: editor,
      schema: {
        tags,
        ...op('post', 'VersionRestore'),
        summary: kind.publish
          ? 'Restore a version into the working copy (publish to serve it)'
          : 'Restore a version (applied at once, as a new version)',
        params: withN,
        response: { 200: kind.response, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { n } = request.params as { n: number };
      return { data: await restoreVersion(ctxOf(request), kind, request.params as P, n) };
    },
  );

  if (kind.publish) {
    api.post(
      `${base}/:n/publish`,
      {
        config: editor,
        schema: {
          tags,
          ...op('post', 'VersionPublish'),
          summary: 'Roll back: publish a version again (as a new version, live at once)',
          params: withN,
          body: publishBody,
          response: { 200: kind.response, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (request) => {
        const { n } = request.params as { n: number };
        const note = (request.body as { note?: string } | undefined)?.note;
        return { data: await republishVersion(ctxOf(request), kind, request.params as P, n, note) };
      },
    );
  }
}
