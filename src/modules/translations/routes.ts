import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { emptyResponse, errors, idParams } from '../../platform/http/schemas.js';
import { bulkUpsertTranslations } from './bulk.js';
import { createLocale, deleteLocale, getLocale, listTenantLocales, updateLocale } from './locales.js';
import {
  bulkResult,
  bulkTranslationsBody,
  createLocaleBody,
  deleteLocaleQuery,
  listTranslationsQuery,
  localeList,
  localeResponse,
  statusQuery,
  statusResponse,
  translationList,
  translationResponse,
  updateLocaleBody,
  updateTranslationBody,
  upsertTranslationBody,
} from './schemas.js';
import { getTranslation, listTranslations, updateTranslation, upsertTranslation } from './service.js';
import { translationStatus } from './status.js';

const tags = ['translations'];
const viewer = { auth: requireRole('VIEWER') };
const editor = { auth: requireRole('EDITOR') };

export const translationRoutes: FastifyPluginAsyncZod = async (app) => {
  // Locales are part of the SDK config (`locales`, `defaultLocale`): tell every instance's cache.

  app.get(
    '/api/translations',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'List translations',
        querystring: listTranslationsQuery,
        response: { 200: translationList, ...errors(400, 401, 403) },
      },
    },
    async (request) => listTranslations(ctxOf(request), request.query),
  );

  app.post(
    '/api/translations',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Create or update a translation',
        description:
          'Upsert on (locale, contentType, contentId, fieldName): 201 when created (version 1), 200 when an ' +
          'existing translation was overwritten (version + 1). `version` = the version last read (0: must not ' +
          'exist yet); another stored version answers 409 VERSION_CONFLICT { currentVersion, currentValue }.',
        body: upsertTranslationBody,
        response: { 200: translationResponse, 201: translationResponse, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const { record, created } = await upsertTranslation(ctxOf(request), request.body);
      return reply.code(created ? 201 : 200).send({ data: record });
    },
  );

  app.post(
    '/api/translations/bulk',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Create or update translations in bulk',
        description:
          'All or nothing, 1 to 1000 rows: an unknown locale (`translations.N.localeCode`) or the same key ' +
          'twice (`translations.N`) rejects the whole request. Existing keys are overwritten (version + 1).',
        body: bulkTranslationsBody,
        response: { 200: bulkResult, ...errors(400, 401, 403) },
      },
    },
    async (request) => ({ data: await bulkUpsertTranslations(ctxOf(request), request.body.translations) }),
  );

  app.get(
    '/api/translations/status',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Get translation coverage per locale',
        querystring: statusQuery,
        response: { 200: statusResponse, ...errors(400, 401, 403) },
      },
    },
    async (request) => ({ data: await translationStatus(ctxOf(request), request.query.contentType) }),
  );

  app.get(
    '/api/translations/locales',
    {
      config: viewer,
      schema: { tags, summary: 'List locales', response: { 200: localeList, ...errors(401, 403) } },
    },
    async (request) => ({ data: await listTenantLocales(ctxOf(request)) }),
  );

  app.post(
    '/api/translations/locales',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Add a locale',
        description:
          "`isDefault` and `isRtl` are required. The tenant's first locale becomes its default even with " +
          '`isDefault: false`. `isDefault: true` unsets the previous default. ' +
          'A code the tenant already has (case-insensitive) → 400 at `code`.',
        body: createLocaleBody,
        response: { 201: localeResponse, ...errors(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const ctx = ctxOf(request);
      const locale = await createLocale(ctx, request.body);
      return reply.code(201).send({ data: locale });
    },
  );

  app.get(
    '/api/translations/locales/:id',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Get a locale',
        params: idParams,
        response: { 200: localeResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await getLocale(ctxOf(request), request.params.id) }),
  );

  app.put(
    '/api/translations/locales/:id',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Update a locale',
        description:
          'The code never changes. `isDefault: true` unsets the previous default; `isDefault: false` on the ' +
          'default locale → 400 (make another locale the default instead).',
        params: idParams,
        body: updateLocaleBody,
        response: { 200: localeResponse, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const ctx = ctxOf(request);
      const locale = await updateLocale(ctx, request.params.id, request.body);
      return { data: locale };
    },
  );

  app.delete(
    '/api/translations/locales/:id',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Delete a locale',
        description:
          '409 LOCALE_IN_USE while translations use the locale, unless `force=true` (they are deleted too). ' +
          'Deleting the default locale makes the oldest remaining locale (createdAt, then code) the default.',
        params: idParams,
        querystring: deleteLocaleQuery,
        response: { 204: emptyResponse, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const ctx = ctxOf(request);
      await deleteLocale(ctx, request.params.id, request.query.force);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/translations/:id',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Get a translation',
        params: idParams,
        response: { 200: translationResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await getTranslation(ctxOf(request), request.params.id) }),
  );

  app.put(
    '/api/translations/:id',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Update a translation',
        description:
          'Same version rule as the upsert: `version` other than the stored one → 409 VERSION_CONFLICT.',
        params: idParams,
        body: updateTranslationBody,
        response: { 200: translationResponse, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ({
      data: await updateTranslation(ctxOf(request), request.params.id, request.body),
    }),
  );
};
