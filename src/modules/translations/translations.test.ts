import { and, eq, sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { type Actor, createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { auditLogs, locales, translations } from '../../db/schema/index.js';
import { TENANT_CONFIG_TOPIC } from '../sdk/config-cache.js';
import { applyTranslations, loadTranslations } from './localize.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Headers = Record<string, string>;
const UNKNOWN_ID = '01900000-0000-7000-8000-000000000000';

interface LocaleBody {
  id: string;
  tenantId: string;
  code: string;
  name: string;
  isDefault: boolean;
  isRtl: boolean;
  createdAt: string;
  updatedAt: string;
}
interface TranslationBody {
  id: string;
  tenantId: string;
  localeId: string;
  contentType: string;
  contentId: string;
  fieldName: string;
  value: string;
  version: number;
  locale: { code: string; name: string };
  createdAt: string;
  updatedAt: string;
}

const req = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, headers: Headers, payload?: unknown) =>
  t.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

/** `isDefault` and `isRtl` are required: false unless the test says otherwise. */
async function addLocale(headers: Headers, body: Record<string, unknown>): Promise<LocaleBody> {
  const res = await req('POST', '/api/translations/locales', headers, {
    isDefault: false,
    isRtl: false,
    ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

/** A tenant with locales en (default), fr, de. */
async function tenantWithLocales(): Promise<{
  tenant: TenantFixture;
  h: Headers;
  en: LocaleBody;
  fr: LocaleBody;
  de: LocaleBody;
}> {
  const tenant = await createTenant(t);
  const h = tenant.owner.headers;
  const en = await addLocale(h, { code: 'en', name: 'English', isDefault: true });
  const fr = await addLocale(h, { code: 'fr', name: 'Français' });
  const de = await addLocale(h, { code: 'de', name: 'Deutsch' });
  return { tenant, h, en, fr, de };
}

const tr = (
  fields: Partial<{
    contentType: string;
    contentId: string;
    fieldName: string;
    localeCode: string;
    value: string;
    version: number;
  }>,
) => ({
  contentType: 'flow',
  contentId: 'flow-1',
  fieldName: 'name',
  localeCode: 'fr',
  value: 'Bonjour',
  ...fields,
});

async function upsert(headers: Headers, body: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return req('POST', '/api/translations', headers, body);
}

const defaults = async (tenantId: string) =>
  (await t.deps.database.db.select().from(locales).where(eq(locales.tenantId, tenantId))).filter(
    (l) => l.isDefault,
  );

// ----------------------------------------------------------------------------------------

describe('locales', () => {
  it('creates locales: canonical casing, the first one becomes the default, list is default first then code', async () => {
    const tenant = await createTenant(t);
    const h = tenant.owner.headers;
    const first = await addLocale(h, { code: 'PT-br', name: 'Português', isDefault: false });
    expect(first).toMatchObject({
      code: 'pt-BR',
      name: 'Português',
      isDefault: true,
      isRtl: false,
      tenantId: tenant.tenantId,
    });
    expect(Date.parse(first.createdAt)).not.toBeNaN();
    const ar = await addLocale(h, { code: 'ar', name: 'العربية', isRtl: true });
    expect(ar).toMatchObject({ isDefault: false, isRtl: true });
    await addLocale(h, { code: 'zh-hant-tw', name: 'Chinese (Taiwan)' });

    const list = await req('GET', '/api/translations/locales', h);
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((l: LocaleBody) => l.code)).toEqual(['pt-BR', 'ar', 'zh-Hant-TW']);

    const got = await req('GET', `/api/translations/locales/${ar.id}`, h);
    expect(got.statusCode).toBe(200);
    expect(got.json().data).toEqual(ar);
  });

  it('validates the code (BCP 47, 2-10 characters), name and flags with exact paths', async () => {
    const { owner } = await createTenant(t);
    for (const code of [
      'e',
      'en-US-POSIX',
      'en_US_POSIX',
      '12',
      'en--US',
      'en__US',
      'en_-US',
      'english',
      'en-',
      'en_',
      '_en',
      'de-DE-x',
      'en-US-xx',
    ]) {
      const err = expectError(
        await req('POST', '/api/translations/locales', owner.headers, {
          code,
          name: 'X',
          isDefault: false,
          isRtl: false,
        }),
        400,
        'VALIDATION_ERROR',
      );
      expect([...new Set((err.details as { path: string }[]).map((d) => d.path))]).toEqual(['code']);
    }
    const err = expectError(
      await req('POST', '/api/translations/locales', owner.headers, {
        code: 'en',
        name: '',
        isDefault: 'yes',
        isRtl: false,
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect((err.details as { path: string }[]).map((d) => d.path).sort()).toEqual(['isDefault', 'name']);
    expect(
      (
        await req('POST', '/api/translations/locales', owner.headers, {
          code: 'es-419',
          name: 'Español (LatAm)',
          isDefault: false,
          isRtl: false,
        })
      ).statusCode,
    ).toBe(201);
  });

  it('requires isDefault and isRtl as booleans on create (400 at each missing path)', async () => {
    const { owner } = await createTenant(t);
    const post = (body: Record<string, unknown>) =>
      req('POST', '/api/translations/locales', owner.headers, { code: 'en', name: 'English', ...body });
    const paths = async (body: Record<string, unknown>) =>
      (expectError(await post(body), 400, 'VALIDATION_ERROR').details as { path: string }[])
        .map((d) => d.path)
        .sort();
    expect(await paths({})).toEqual(['isDefault', 'isRtl']);
    expect(await paths({ isRtl: false })).toEqual(['isDefault']);
    expect(await paths({ isDefault: true })).toEqual(['isRtl']);
    expect(await paths({ isDefault: null, isRtl: 'false' })).toEqual(['isDefault', 'isRtl']);
    expect((await req('GET', '/api/translations/locales', owner.headers)).json().data).toEqual([]);
    expect((await post({ isDefault: true, isRtl: false })).statusCode).toBe(201);
  });

  it('accepts _ as a separator and stores it as - (en_US → en-US)', async () => {
    const { owner } = await createTenant(t);
    const h = owner.headers;
    expect(await addLocale(h, { code: 'en_US', name: 'English (US)' })).toMatchObject({ code: 'en-US' });
    expect(await addLocale(h, { code: 'zh_hant_TW', name: 'Chinese (Taiwan)' })).toMatchObject({
      code: 'zh-Hant-TW',
    });
    expect(await addLocale(h, { code: 'pt_br', name: 'Português' })).toMatchObject({ code: 'pt-BR' });
    // the same locale under either separator is a duplicate
    const err = expectError(
      await req('POST', '/api/translations/locales', h, {
        code: 'en-us',
        name: 'Again',
        isDefault: false,
        isRtl: false,
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(err.details).toEqual([{ path: 'code', message: 'locale already exists' }]);
    expect(
      (await req('GET', '/api/translations/locales', h)).json().data.map((l: LocaleBody) => l.code),
    ).toEqual(['en-US', 'pt-BR', 'zh-Hant-TW']);
  });

  it('refuses a code the tenant already has, case-insensitively, with 400 at code', async () => {
    const { owner } = await createTenant(t);
    await addLocale(owner.headers, { code: 'pt-BR', name: 'Português' });
    const err = expectError(
      await req('POST', '/api/translations/locales', owner.headers, {
        code: 'pt-br',
        name: 'Again',
        isDefault: false,
        isRtl: false,
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(err.details).toEqual([{ path: 'code', message: 'locale already exists' }]);
    // another tenant may use the same code
    const other = await createTenant(t);
    await addLocale(other.owner.headers, { code: 'pt-BR', name: 'Português' });
  });

  it('keeps exactly one default: isDefault on create or PUT moves it; unsetting the default is refused', async () => {
    const { tenant, h, en, fr, de } = await tenantWithLocales();
    const es = await addLocale(h, { code: 'es', name: 'Español', isDefault: true });
    expect(es.isDefault).toBe(true);
    expect((await defaults(tenant.tenantId)).map((l) => l.code)).toEqual(['es']);

    const put = await req('PUT', `/api/translations/locales/${fr.id}`, h, { isDefault: true });
    expect(put.statusCode).toBe(200);
    expect(put.json().data).toMatchObject({ id: fr.id, isDefault: true });
    expect((await defaults(tenant.tenantId)).map((l) => l.code)).toEqual(['fr']);

    const err = expectError(
      await req('PUT', `/api/translations/locales/${fr.id}`, h, { isDefault: false }),
      400,
      'VALIDATION_ERROR',
    );
    expect((err.details as { path: string }[])[0]!.path).toBe('isDefault');
    // unsetting on a non-default locale is a no-op
    expect(
      (await req('PUT', `/api/translations/locales/${de.id}`, h, { isDefault: false })).json().data.isDefault,
    ).toBe(false);
    expect((await defaults(tenant.tenantId)).map((l) => l.code)).toEqual(['fr']);
    void en;
  });

  it('updates name and isRtl; the code never changes (a code in the body is ignored)', async () => {
    const { h, de } = await tenantWithLocales();
    const res = await req('PUT', `/api/translations/locales/${de.id}`, h, {
      code: 'xx',
      name: 'German',
      isRtl: true,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      id: de.id,
      code: 'de',
      name: 'German',
      isRtl: true,
      isDefault: false,
    });
    expect(Date.parse(res.json().data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(de.updatedAt));
    const empty = await req('PUT', `/api/translations/locales/${de.id}`, h, {});
    expect(empty.json().data).toMatchObject({ name: 'German', isRtl: true });
    expectError(
      await req('PUT', `/api/translations/locales/${de.id}`, h, { name: '' }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('ends with exactly one default under concurrent creates and PUTs', async () => {
    // two first locales at once: one of them becomes the default
    const fresh = await createTenant(t);
    const [a, b] = await Promise.all([
      req('POST', '/api/translations/locales', fresh.owner.headers, {
        code: 'en',
        name: 'English',
        isDefault: false,
        isRtl: false,
      }),
      req('POST', '/api/translations/locales', fresh.owner.headers, {
        code: 'fr',
        name: 'French',
        isDefault: false,
        isRtl: false,
      }),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(await defaults(fresh.tenantId)).toHaveLength(1);

    // two creates asking to be the default
    const { tenant, h, fr, de } = await tenantWithLocales();
    const creates = await Promise.all([
      req('POST', '/api/translations/locales', h, {
        code: 'es',
        name: 'Español',
        isDefault: true,
        isRtl: false,
      }),
      req('POST', '/api/translations/locales', h, {
        code: 'it',
        name: 'Italiano',
        isDefault: true,
        isRtl: false,
      }),
    ]);
    expect(creates.map((r) => r.statusCode)).toEqual([201, 201]);
    expect(await defaults(tenant.tenantId)).toHaveLength(1);

    // two PUTs making different locales the default
    const puts = await Promise.all([
      req('PUT', `/api/translations/locales/${fr.id}`, h, { isDefault: true }),
      req('PUT', `/api/translations/locales/${de.id}`, h, { isDefault: true }),
    ]);
    expect(puts.map((r) => r.statusCode)).toEqual([200, 200]);
    const after = await defaults(tenant.tenantId);
    expect(after).toHaveLength(1);
    expect([fr.id, de.id]).toContain(after[0]!.id);
  });

  it('deletes: 409 LOCALE_IN_USE while translations use it, force deletes both, 204 without a body', async () => {
    const { tenant, h, fr, de } = await tenantWithLocales();
    await upsert(h, tr({ localeCode: 'fr' }));
    await upsert(h, tr({ localeCode: 'fr', fieldName: 'description' }));
    const refused = expectError(
      await req('DELETE', `/api/translations/locales/${fr.id}`, h),
      409,
      'LOCALE_IN_USE',
    );
    expect(refused.details).toEqual({ translations: 2 });
    expectError(
      await req('DELETE', `/api/translations/locales/${fr.id}?force=false`, h),
      409,
      'LOCALE_IN_USE',
    );
    expectError(
      await req('DELETE', `/api/translations/locales/${fr.id}?force=maybe`, h),
      400,
      'VALIDATION_ERROR',
    );

    const forced = await req('DELETE', `/api/translations/locales/${fr.id}?force=true`, h);
    expect(forced.statusCode).toBe(204);
    expect(forced.body).toBe('');
    expectError(await req('GET', `/api/translations/locales/${fr.id}`, h), 404, 'NOT_FOUND');
    const left = await t.deps.database.db
      .select()
      .from(translations)
      .where(eq(translations.tenantId, tenant.tenantId));
    expect(left).toHaveLength(0);

    const unused = await req('DELETE', `/api/translations/locales/${de.id}`, h);
    expect(unused.statusCode).toBe(204);
    expectError(await req('DELETE', `/api/translations/locales/${de.id}`, h), 404, 'NOT_FOUND');
  });

  it('deletes the default locale: the oldest remaining locale becomes the default', async () => {
    const { tenant, h, en, fr, de } = await tenantWithLocales();
    const gone = await req('DELETE', `/api/translations/locales/${en.id}`, h);
    expect(gone.statusCode).toBe(204);
    expect(gone.body).toBe('');
    // fr was created before de
    expect((await defaults(tenant.tenantId)).map((l) => l.id)).toEqual([fr.id]);
    const list = (await req('GET', '/api/translations/locales', h)).json().data as LocaleBody[];
    expect(list.map((l) => [l.code, l.isDefault])).toEqual([
      ['fr', true],
      ['de', false],
    ]);
    const promoted = await t.deps.database.db
      .select()
      .from(auditLogs)
      .where(
        and(
          eq(auditLogs.tenantId, tenant.tenantId),
          eq(auditLogs.action, 'LOCALE_UPDATED'),
          eq(auditLogs.entityId, fr.id),
        ),
      );
    expect(promoted).toHaveLength(1);
    expect(promoted[0]!.metadata).toMatchObject({ code: 'fr', changes: { isDefault: true } });
    // then de, the last one, and finally none
    expect((await req('DELETE', `/api/translations/locales/${fr.id}`, h)).statusCode).toBe(204);
    expect((await defaults(tenant.tenantId)).map((l) => l.id)).toEqual([de.id]);
    expect((await req('DELETE', `/api/translations/locales/${de.id}`, h)).statusCode).toBe(204);
    expect((await req('GET', '/api/translations/locales', h)).json().data).toEqual([]);
  });

  it('promotes by createdAt, then code, and keeps LOCALE_IN_USE for a default with translations', async () => {
    const { tenant, h, en } = await tenantWithLocales();
    const nl = await addLocale(h, { code: 'nl', name: 'Nederlands' });
    const it_ = await addLocale(h, { code: 'it', name: 'Italiano' });
    // fr and de made younger than nl and it, which share one createdAt: `it` wins on code
    await t.deps.database.db.execute(sql`
      update locales set created_at = case when code in ('nl', 'it') then now() - interval '1 day' else now() end
      where tenant_id = ${tenant.tenantId} and not is_default`);
    await upsert(h, tr({ localeCode: 'en' }));
    const refused = expectError(
      await req('DELETE', `/api/translations/locales/${en.id}`, h),
      409,
      'LOCALE_IN_USE',
    );
    expect(refused.details).toEqual({ translations: 1 });
    expect((await defaults(tenant.tenantId)).map((l) => l.id)).toEqual([en.id]);
    expect((await req('DELETE', `/api/translations/locales/${en.id}?force=true`, h)).statusCode).toBe(204);
    expect((await defaults(tenant.tenantId)).map((l) => l.id)).toEqual([it_.id]);
    void nl;
  });

  it('publishes tenant-config after every locale change and writes audit rows', async () => {
    const tenant = await createTenant(t);
    const h = tenant.owner.headers;
    const heard: string[] = [];
    t.deps.changes.subscribe(TENANT_CONFIG_TOPIC, (tenantId) => {
      if (tenantId === tenant.tenantId) heard.push(tenantId);
    });
    const en = await addLocale(h, { code: 'en', name: 'English' });
    const fr = await addLocale(h, { code: 'fr', name: 'French' });
    await req('PUT', `/api/translations/locales/${fr.id}`, h, { name: 'Français' });
    await req('DELETE', `/api/translations/locales/${fr.id}`, h);
    expect(heard).toHaveLength(4);
    const rows = await t.deps.database.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.tenantId, tenant.tenantId), eq(auditLogs.entityType, 'locale')));
    expect(rows.map((r) => r.action).sort()).toEqual([
      'LOCALE_CREATED',
      'LOCALE_CREATED',
      'LOCALE_DELETED',
      'LOCALE_UPDATED',
    ]);
    expect(rows.find((r) => r.entityId === en.id)).toMatchObject({ actorId: tenant.owner.userId });
  });
});

// ----------------------------------------------------------------------------------------

describe('translations', () => {
  it('upserts: 201 with version 1, then 200 with version + 1; GET by id; audit rows', async () => {
    const { tenant, h, fr } = await tenantWithLocales();
    const created = await upsert(h, tr({ localeCode: 'FR' }));
    expect(created.statusCode).toBe(201);
    const first: TranslationBody = created.json().data;
    expect(first).toMatchObject({
      tenantId: tenant.tenantId,
      localeId: fr.id,
      contentType: 'flow',
      contentId: 'flow-1',
      fieldName: 'name',
      value: 'Bonjour',
      version: 1,
      locale: { code: 'fr', name: 'Français' },
    });
    const again = await upsert(h, tr({ value: 'Salut' }));
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toMatchObject({
      id: first.id,
      value: 'Salut',
      version: 2,
      createdAt: first.createdAt,
    });

    const got = await req('GET', `/api/translations/${first.id}`, h);
    expect(got.statusCode).toBe(200);
    expect(got.json().data).toMatchObject({
      id: first.id,
      value: 'Salut',
      version: 2,
      locale: { code: 'fr' },
    });

    const audits = await t.deps.database.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.tenantId, tenant.tenantId), eq(auditLogs.entityId, first.id)));
    expect(audits.map((a) => a.action).sort()).toEqual(['TRANSLATION_CREATED', 'TRANSLATION_UPDATED']);
  });

  it('validates the body with exact paths; an unknown localeCode is a 400 at localeCode', async () => {
    const { h } = await tenantWithLocales();
    const paths = async (body: unknown) =>
      (
        expectError(await upsert(h, body as Record<string, unknown>), 400, 'VALIDATION_ERROR').details as {
          path: string;
        }[]
      )
        .map((d) => d.path)
        .sort();
    expect(await paths({})).toEqual(['contentId', 'contentType', 'fieldName', 'localeCode', 'value']);
    expect(await paths(tr({ value: 5 as unknown as string }))).toEqual(['value']);
    expect(await paths(tr({ version: -1 }))).toEqual(['version']);
    expect(await paths(tr({ version: 1.5 }))).toEqual(['version']);
    expect(await paths(tr({ fieldName: 'content..title' }))).toEqual(['fieldName']);
    expect(await paths(tr({ contentType: '' }))).toEqual(['contentType']);
    const unknown = expectError(await upsert(h, tr({ localeCode: 'ja' })), 400, 'VALIDATION_ERROR');
    expect(unknown.details).toEqual([{ path: 'localeCode', message: expect.stringContaining('ja') }]);
    expect(
      await t.deps.database.db.select().from(translations).where(eq(translations.contentId, 'never')),
    ).toEqual([]);
  });

  it('answers 409 VERSION_CONFLICT with the current version and value (POST)', async () => {
    const { h } = await tenantWithLocales();
    const a = (await upsert(h, tr({ version: 0 }))).json().data as TranslationBody;
    expect(a.version).toBe(1);
    const ok = await upsert(h, tr({ value: 'v2', version: 1 }));
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data).toMatchObject({ id: a.id, value: 'v2', version: 2 });

    const stale = expectError(await upsert(h, tr({ value: 'v3', version: 1 })), 409, 'VERSION_CONFLICT');
    expect(stale.details).toEqual({ currentVersion: 2, currentValue: 'v2' });
    const exists = expectError(await upsert(h, tr({ value: 'v3', version: 0 })), 409, 'VERSION_CONFLICT');
    expect(exists.details).toEqual({ currentVersion: 2, currentValue: 'v2' });
    const missing = expectError(
      await upsert(h, tr({ contentId: 'nope', version: 4 })),
      409,
      'VERSION_CONFLICT',
    );
    expect(missing.details).toEqual({ currentVersion: 0, currentValue: null });
    expect((await req('GET', `/api/translations/${a.id}`, h)).json().data).toMatchObject({
      value: 'v2',
      version: 2,
    });
  });

  it('PUT /:id updates value with the same version rule', async () => {
    const { h } = await tenantWithLocales();
    const a = (await upsert(h, tr({}))).json().data as TranslationBody;
    const put = await req('PUT', `/api/translations/${a.id}`, h, { value: 'Coucou', version: 1 });
    expect(put.statusCode).toBe(200);
    expect(put.json().data).toMatchObject({
      id: a.id,
      value: 'Coucou',
      version: 2,
      locale: { code: 'fr', name: 'Français' },
    });
    const stale = expectError(
      await req('PUT', `/api/translations/${a.id}`, h, { value: 'x', version: 1 }),
      409,
      'VERSION_CONFLICT',
    );
    expect(stale.details).toEqual({ currentVersion: 2, currentValue: 'Coucou' });
    const blind = await req('PUT', `/api/translations/${a.id}`, h, { value: 'Salut' });
    expect(blind.json().data).toMatchObject({ value: 'Salut', version: 3 });
    const err = expectError(
      await req('PUT', `/api/translations/${a.id}`, h, { version: 'x' }),
      400,
      'VALIDATION_ERROR',
    );
    expect((err.details as { path: string }[]).map((d) => d.path).sort()).toEqual(['value', 'version']);
    for (const id of ['not-a-uuid', UNKNOWN_ID]) {
      expectError(await req('PUT', `/api/translations/${id}`, h, { value: 'x' }), 404, 'NOT_FOUND');
      expectError(await req('GET', `/api/translations/${id}`, h), 404, 'NOT_FOUND');
    }
  });

  it('lets exactly one of two concurrent writers with the same expected version win', async () => {
    const { h } = await tenantWithLocales();
    const a = (await upsert(h, tr({}))).json().data as TranslationBody;
    const posts = await Promise.all([
      upsert(h, tr({ value: 'left', version: 1 })),
      upsert(h, tr({ value: 'right', version: 1 })),
    ]);
    expect(posts.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const puts = await Promise.all([
      req('PUT', `/api/translations/${a.id}`, h, { value: 'one', version: 2 }),
      req('PUT', `/api/translations/${a.id}`, h, { value: 'two', version: 2 }),
    ]);
    expect(puts.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const creates = await Promise.all([
      upsert(h, tr({ contentId: 'race', version: 0 })),
      upsert(h, tr({ contentId: 'race', version: 0 })),
    ]);
    expect(creates.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const winner = puts.find((r) => r.statusCode === 200)!.json().data;
    expect((await req('GET', `/api/translations/${a.id}`, h)).json().data).toMatchObject({
      value: winner.value,
      version: 3,
    });
  });

  it('lists with filters, default limit 50 and pagination meta, newest first', async () => {
    const { h } = await tenantWithLocales();
    const rows = [];
    for (let i = 0; i < 55; i++)
      rows.push(tr({ contentId: `c${i % 2}`, fieldName: `f${i}`, localeCode: i % 5 === 0 ? 'de' : 'fr' }));
    expect((await req('POST', '/api/translations/bulk', h, { translations: rows })).statusCode).toBe(200);

    const page1 = await req('GET', '/api/translations', h);
    expect(page1.statusCode).toBe(200);
    expect(page1.json().meta).toEqual({ page: 1, limit: 50, total: 55, totalPages: 2 });
    expect(page1.json().data).toHaveLength(50);
    const item = page1.json().data[0] as TranslationBody;
    expect(Object.keys(item).sort()).toEqual(
      [
        'contentId',
        'contentType',
        'createdAt',
        'fieldName',
        'id',
        'locale',
        'localeId',
        'tenantId',
        'updatedAt',
        'value',
        'version',
      ].sort(),
    );
    const sorted = [...page1.json().data].sort(
      (x: TranslationBody, y: TranslationBody) =>
        Date.parse(y.createdAt) - Date.parse(x.createdAt) || (y.id > x.id ? 1 : -1),
    );
    expect(page1.json().data).toEqual(sorted);
    expect((await req('GET', '/api/translations?page=2', h)).json().data).toHaveLength(5);

    const de = await req('GET', '/api/translations?localeCode=DE&limit=100', h);
    expect(de.json().meta.total).toBe(11);
    expect(de.json().data.every((r: TranslationBody) => r.locale.code === 'de')).toBe(true);
    const c1 = await req('GET', '/api/translations?contentType=flow&contentId=c1&limit=100', h);
    expect(c1.json().meta.total).toBe(27);
    expect((await req('GET', '/api/translations?contentType=step', h)).json().meta.total).toBe(0);
    expect((await req('GET', '/api/translations?localeCode=ja', h)).json().meta.total).toBe(0);

    for (const q of ['limit=101', 'limit=0', 'page=0', 'limit=abc']) {
      const err = expectError(await req('GET', `/api/translations?${q}`, h), 400, 'VALIDATION_ERROR');
      expect((err.details as { path: string }[])[0]!.path).toMatch(/^query\.(limit|page)$/);
    }
  });
});

// ----------------------------------------------------------------------------------------

describe('bulk', () => {
  it('upserts many rows in one request: created and updated counts, versions bumped', async () => {
    const { tenant, h } = await tenantWithLocales();
    await upsert(h, tr({ fieldName: 'title', value: 'old' }));
    const res = await req('POST', '/api/translations/bulk', h, {
      translations: [
        tr({ fieldName: 'title', value: 'Titre' }),
        tr({ fieldName: 'body', value: 'Corps' }),
        tr({ fieldName: 'title', localeCode: 'DE', value: 'Titel' }),
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { created: 2, updated: 1 } });
    const rows = await t.deps.database.db
      .select()
      .from(translations)
      .where(eq(translations.tenantId, tenant.tenantId));
    expect(rows.map((r) => [r.fieldName, r.value, r.version]).sort()).toEqual(
      [
        ['body', 'Corps', 1],
        ['title', 'Titel', 1],
        ['title', 'Titre', 2],
      ].sort(),
    );
    const audit = await t.deps.database.db
      .select()
      .from(auditLogs)
      .where(
        and(eq(auditLogs.tenantId, tenant.tenantId), eq(auditLogs.action, 'TRANSLATIONS_BULK_UPSERTED')),
      );
    expect(audit[0]!.metadata).toMatchObject({ created: 2, updated: 1 });
  });

  it('is all or nothing: a bad row 3 rejects the request and writes nothing', async () => {
    const { tenant, h } = await tenantWithLocales();
    const rows = [
      tr({ fieldName: 'a' }),
      tr({ fieldName: 'b' }),
      tr({ fieldName: 'c', localeCode: 'ja' }),
      tr({ fieldName: 'd' }),
    ];
    const err = expectError(
      await req('POST', '/api/translations/bulk', h, { translations: rows }),
      400,
      'VALIDATION_ERROR',
    );
    expect(err.details).toEqual([{ path: 'translations.2.localeCode', message: expect.any(String) }]);

    const schemaBad = [
      tr({ fieldName: 'a' }),
      tr({ fieldName: 'b' }),
      { ...tr({ fieldName: 'c' }), value: undefined },
    ];
    const err2 = expectError(
      await req('POST', '/api/translations/bulk', h, { translations: schemaBad }),
      400,
      'VALIDATION_ERROR',
    );
    expect((err2.details as { path: string }[]).map((d) => d.path)).toEqual(['translations.2.value']);

    const dup = [tr({ fieldName: 'a' }), tr({ fieldName: 'b' }), tr({ fieldName: 'a', localeCode: 'FR' })];
    const err3 = expectError(
      await req('POST', '/api/translations/bulk', h, { translations: dup }),
      400,
      'VALIDATION_ERROR',
    );
    expect(err3.details).toEqual([
      { path: 'translations.2', message: expect.stringContaining('translations.0') },
    ]);

    const written = await t.deps.database.db
      .select()
      .from(translations)
      .where(eq(translations.tenantId, tenant.tenantId));
    expect(written).toHaveLength(0);

    for (const body of [
      {},
      { translations: [] },
      { translations: Array.from({ length: 1001 }, (_, i) => tr({ fieldName: `f${i}` })) },
    ]) {
      const e = expectError(await req('POST', '/api/translations/bulk', h, body), 400, 'VALIDATION_ERROR');
      expect((e.details as { path: string }[])[0]!.path).toBe('translations');
    }
  });

  it('writes 1,000 rows with one statement, then updates them all', async () => {
    const { tenant, h } = await tenantWithLocales();
    const rows = Array.from({ length: 1000 }, (_, i) =>
      tr({
        contentId: `item-${i % 100}`,
        fieldName: `field.${Math.floor(i / 100)}`,
        localeCode: i % 2 ? 'fr' : 'de',
        value: `v${i}`,
      }),
    );
    // distinct keys: 100 ids × 10 fields, locale alternating → 1000 distinct (locale, id, field)
    const started = Date.now();
    const res = await req('POST', '/api/translations/bulk', h, { translations: rows });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ created: 1000, updated: 0 });
    expect(Date.now() - started).toBeLessThan(10_000);
    const again = await req('POST', '/api/translations/bulk', h, {
      translations: rows.map((r) => ({ ...r, value: `${r.value}!` })),
    });
    expect(again.json().data).toEqual({ created: 0, updated: 1000 });
    const stored = await t.deps.database.db
      .select()
      .from(translations)
      .where(eq(translations.tenantId, tenant.tenantId));
    expect(stored).toHaveLength(1000);
    expect(stored.every((r) => r.version === 2 && r.value.endsWith('!'))).toBe(true);
  });
});

// ----------------------------------------------------------------------------------------

describe('status', () => {
  it('counts distinct keys and non-blank values per locale, with one-decimal percentages', async () => {
    const { h } = await tenantWithLocales();
    const keys = [
      { contentType: 'flow', contentId: 'f1', fieldName: 'name' },
      { contentType: 'flow', contentId: 'f1', fieldName: 'description' },
      { contentType: 'flow', contentId: 'f2', fieldName: 'name' },
      { contentType: 'tooltips', contentId: 't1', fieldName: 'content.title' },
    ];
    const rows = [
      ...keys.map((k) => ({ ...k, localeCode: 'en', value: 'EN' })),
      ...keys.slice(0, 3).map((k) => ({ ...k, localeCode: 'fr', value: 'FR' })),
      { ...keys[3]!, localeCode: 'fr', value: '   ' }, // blank: not translated
      { ...keys[0]!, localeCode: 'de', value: 'DE' },
    ];
    expect((await req('POST', '/api/translations/bulk', h, { translations: rows })).statusCode).toBe(200);
    await addLocale(h, { code: 'ja', name: '日本語' });

    const res = await req('GET', '/api/translations/status', h);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([
      { localeCode: 'en', localeName: 'English', isDefault: true, translated: 4, total: 4, percentage: 100 },
      { localeCode: 'de', localeName: 'Deutsch', isDefault: false, translated: 1, total: 4, percentage: 25 },
      { localeCode: 'fr', localeName: 'Français', isDefault: false, translated: 3, total: 4, percentage: 75 },
      { localeCode: 'ja', localeName: '日本語', isDefault: false, translated: 0, total: 4, percentage: 0 },
    ]);

    const flows = (await req('GET', '/api/translations/status?contentType=flow', h)).json().data;
    expect(
      flows.map((s: { localeCode: string; translated: number; total: number; percentage: number }) => [
        s.localeCode,
        s.translated,
        s.total,
        s.percentage,
      ]),
    ).toEqual([
      ['en', 3, 3, 100],
      ['de', 1, 3, 33.3],
      ['fr', 3, 3, 100],
      ['ja', 0, 3, 0],
    ]);
    const none = (await req('GET', '/api/translations/status?contentType=surveys', h)).json().data;
    expect(
      none.every((s: { total: number; percentage: number }) => s.total === 0 && s.percentage === 0),
    ).toBe(true);
    expectError(await req('GET', '/api/translations/status?contentType=', h), 400, 'VALIDATION_ERROR');
  });

  it('answers an empty list for a tenant without locales', async () => {
    const { owner } = await createTenant(t);
    expect((await req('GET', '/api/translations/status', owner.headers)).json()).toEqual({ data: [] });
  });
});

// ----------------------------------------------------------------------------------------

describe('translate (delivery)', () => {
  it('uses the requested locale, then its base language, then the default, then the original', async () => {
    const { tenant, h } = await tenantWithLocales();
    await addLocale(h, { code: 'fr-CA', name: 'Français (Canada)' });
    const rows = [
      tr({ contentType: 'flow', contentId: 'f1', fieldName: 'name', localeCode: 'en', value: 'Tour' }),
      tr({
        contentType: 'flow',
        contentId: 'f1',
        fieldName: 'description',
        localeCode: 'en',
        value: 'A tour',
      }),
      tr({
        contentType: 'flow',
        contentId: 'f1',
        fieldName: 'steps.0.content.title',
        localeCode: 'en',
        value: 'First',
      }),
      tr({ contentType: 'flow', contentId: 'f1', fieldName: 'name', localeCode: 'fr', value: 'Visite' }),
      tr({ contentType: 'flow', contentId: 'f1', fieldName: 'name', localeCode: 'fr-CA', value: 'Tournée' }),
      tr({
        contentType: 'flow',
        contentId: 'f1',
        fieldName: 'steps.0.content.title',
        localeCode: 'fr',
        value: 'Premier',
      }),
      tr({ contentType: 'flow', contentId: 'f1', fieldName: 'description', localeCode: 'fr', value: '' }),
      tr({ contentType: 'flow', contentId: 'f2', fieldName: 'name', localeCode: 'de', value: 'Rundgang' }),
    ];
    expect((await req('POST', '/api/translations/bulk', h, { translations: rows })).statusCode).toBe(200);
    const db = t.deps.database.db;
    /** One record the way delivery does it: load its translations, then apply them. */
    const translateRecord = async <T extends Record<string, unknown>>(
      tenantId: string,
      locale: string | undefined,
      contentId: string,
      rec: T,
    ) => {
      const lookup = await loadTranslations(db, tenantId, locale, [{ contentType: 'flow', contentId }]);
      return applyTranslations(rec, lookup.fieldsFor('flow', contentId));
    };
    const record = {
      name: 'Original',
      description: 'Original description',
      untranslated: 'stays',
      steps: [{ content: { title: 'Original step' } }],
    };

    expect(await translateRecord(tenant.tenantId, 'fr', 'f1', record)).toEqual({
      name: 'Visite',
      description: 'A tour', // blank fr value falls back to the default locale
      untranslated: 'stays',
      steps: [{ content: { title: 'Premier' } }],
    });
    expect(await translateRecord(tenant.tenantId, 'fr-ca', 'f1', record)).toMatchObject({
      name: 'Tournée',
      steps: [{ content: { title: 'Premier' } }], // from the base language fr
    });
    for (const locale of [undefined, 'ja', 'de']) {
      expect(await translateRecord(tenant.tenantId, locale, 'f1', record)).toEqual({
        ...record,
        name: 'Tour',
        description: 'A tour',
        steps: [{ content: { title: 'First' } }],
      });
    }
    expect(await translateRecord(tenant.tenantId, 'fr', 'unknown', record)).toBe(record);
    // another tenant's translations never apply
    const other = await createTenant(t);
    expect(await translateRecord(other.tenantId, 'fr', 'f1', record)).toBe(record);

    const lookup = await loadTranslations(db, tenant.tenantId, 'de', [
      { contentType: 'flow', contentId: 'f1' },
      { contentType: 'flow', contentId: 'f2' },
      { contentType: 'flow', contentId: 'f1' },
    ]);
    expect(applyTranslations({ name: 'x' }, lookup.fieldsFor('flow', 'f2'))).toEqual({ name: 'Rundgang' });
    expect(applyTranslations({ name: 'x' }, lookup.fieldsFor('flow', 'f1'))).toEqual({ name: 'Tour' }); // absent keys stay absent
    expect([...lookup.fieldsFor('flow', 'f1').keys()].sort()).toEqual([
      'description',
      'name',
      'steps.0.content.title',
    ]);
    expect(lookup.fieldsFor('flow', 'nope').size).toBe(0);
    expect((await loadTranslations(db, tenant.tenantId, 'fr', [])).fieldsFor('flow', 'f1').size).toBe(0);
  });
});

// ----------------------------------------------------------------------------------------

describe('roles and tenants', () => {
  it('lets VIEWER read and refuses its writes; EDITOR writes; no token is a 401', async () => {
    const { tenant, h, fr } = await tenantWithLocales();
    const a = (await upsert(h, tr({}))).json().data as TranslationBody;
    const viewer: Actor = await tenant.as('VIEWER');
    const editor: Actor = await tenant.as('EDITOR');
    for (const url of [
      '/api/translations',
      `/api/translations/${a.id}`,
      '/api/translations/status',
      '/api/translations/locales',
      `/api/translations/locales/${fr.id}`,
    ]) {
      expect((await req('GET', url, viewer.headers)).statusCode).toBe(200);
      expectError(await req('GET', url, {}), 401, 'AUTH_NO_TOKEN');
    }
    const writes: ['POST' | 'PUT' | 'DELETE', string, unknown][] = [
      ['POST', '/api/translations', tr({ fieldName: 'byEditor' })],
      ['POST', '/api/translations/bulk', { translations: [tr({ fieldName: 'bulkByEditor' })] }],
      ['PUT', `/api/translations/${a.id}`, { value: 'edited' }],
      [
        'POST',
        '/api/translations/locales',
        { code: 'nl', name: 'Nederlands', isDefault: false, isRtl: false },
      ],
      ['PUT', `/api/translations/locales/${fr.id}`, { name: 'French' }],
    ];
    for (const [method, url, body] of writes) {
      expectError(await req(method, url, viewer.headers, body), 403, 'INSUFFICIENT_ROLE');
      expect((await req(method, url, editor.headers, body)).statusCode).toBeLessThan(300);
    }
    const nl = (await req('GET', '/api/translations/locales', h))
      .json()
      .data.find((l: LocaleBody) => l.code === 'nl');
    expectError(
      await req('DELETE', `/api/translations/locales/${nl.id}`, viewer.headers),
      403,
      'INSUFFICIENT_ROLE',
    );
    expect((await req('DELETE', `/api/translations/locales/${nl.id}`, editor.headers)).statusCode).toBe(204);
  });

  it("gives another tenant 404 for every id and never shows it the first tenant's data", async () => {
    const first = await tenantWithLocales();
    const a = (await upsert(first.h, tr({}))).json().data as TranslationBody;
    const other = await createTenant(t);
    const oh = other.owner.headers;
    for (const id of [a.id, 'not-a-uuid', UNKNOWN_ID]) {
      expectError(await req('GET', `/api/translations/${id}`, oh), 404, 'NOT_FOUND');
      expectError(await req('PUT', `/api/translations/${id}`, oh, { value: 'hack' }), 404, 'NOT_FOUND');
    }
    for (const id of [first.fr.id, first.en.id, 'not-a-uuid', UNKNOWN_ID]) {
      expectError(await req('GET', `/api/translations/locales/${id}`, oh), 404, 'NOT_FOUND');
      expectError(
        await req('PUT', `/api/translations/locales/${id}`, oh, { name: 'x', isDefault: true }),
        404,
        'NOT_FOUND',
      );
      expectError(await req('DELETE', `/api/translations/locales/${id}?force=true`, oh), 404, 'NOT_FOUND');
    }
    expect((await req('GET', '/api/translations', oh)).json().meta.total).toBe(0);
    expect((await req('GET', '/api/translations/locales', oh)).json().data).toEqual([]);
    expect((await req('GET', '/api/translations/status', oh)).json().data).toEqual([]);
    // the first tenant's locale codes mean nothing to the second
    expectError(await upsert(oh, tr({})), 400, 'VALIDATION_ERROR');
    expectError(
      await req('POST', '/api/translations/bulk', oh, { translations: [tr({})] }),
      400,
      'VALIDATION_ERROR',
    );
    // and its own same-code locale keeps the data apart
    await addLocale(oh, { code: 'fr', name: 'French' });
    expect((await upsert(oh, tr({ value: 'Mine' }))).statusCode).toBe(201);
    const mine = (await req('GET', `/api/translations/${a.id}`, first.h)).json().data;
    expect(mine).toMatchObject({ value: 'Bonjour', version: 1 });
    expect((await req('GET', `/api/translations/locales/${first.fr.id}`, first.h)).json().data.name).toBe(
      'Français',
    );
  });
});
