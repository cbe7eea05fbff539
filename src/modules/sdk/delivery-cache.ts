import type { Logger } from 'pino';
import { z } from 'zod';
import type { DatabaseHandle, Executor } from '../../db/client.js';
import { rawQuery } from '../../db/raw.js';
import type { CONTENT_TYPES } from '../../db/schema/index.js';
import type { RuleNode } from '../../engine/rules.js';
import type { UrlRule } from '../../engine/url-match.js';
import { loadLiveAudiences } from '../audiences/service.js';
import { CONTENT_DEFS, recordOf } from '../content/definitions.js';
import { loadDeliverableContent } from '../content/delivery.js';
import { npsSurvey } from '../content/schemas.js';
import { loadDeliverableFlows } from '../flows/delivery.js';
import { flowRecord } from '../flows/schemas.js';
import { applyTranslations, loadTranslations, type TranslatedFields } from '../translations/translate.js';
import { type FrequencySettings, frequencyOf } from './frequency.js';

/**
 * The per-tenant DELIVERY cache: what `POST /api/sdk/session` may serve a tenant, prepared once.
 *
 * A snapshot holds the tenant's PUBLISHED flows (with steps), content items and NPS surveys, the
 * live audiences' rule trees, the frequency settings, and per requested locale the translated,
 * already-serialized JSON of every item. A session then only filters (expiry at `clock()`,
 * frequency cap, url, audience) and concatenates strings.
 *
 * Freshness without reading other modules' code paths: database triggers (migration 0014) bump
 * `tenant_delivery_versions.version` at commit of any transaction that changes flows, steps,
 * content, NPS surveys, audiences, translations, locales or tenant settings. Each session reads
 * the tenant's version in the same statement as its end user (session-lookup.ts); a snapshot
 * older than that version is reloaded before answering. The snapshot itself reads the version
 * in the same REPEATABLE READ transaction as the data, so its version describes exactly what it
 * holds. Hence no instance ever serves content older than a change that committed before the
 * session's statement ran, whichever instance made the change; no bus message is needed.
 *
 * Expiry is evaluated per request (items are loaded whatever their `expiresAt`), so an item stops
 * being served the moment it expires, before the background job archives it.
 */

export interface Servable {
  id: string;
  audienceId: string | null;
  /** Milliseconds; null: never expires. */
  expiresAt: number | null;
  /** Substrings the session url must contain (content `targetUrl`, `triggerConfig.url`). */
  contains: string[];
  /** A URL_MATCH flow trigger or a `url_match` content trigger. */
  rule: UrlRule | null;
  /** Whether any url condition exists (then a session without url does not get the item). */
  urlBound: boolean;
}

export interface LocaleView {
  /** Items serialized and UTF-8 encoded once, index-aligned with `Snapshot.flows` / `Snapshot.content`. */
  flows: Buffer[];
  content: Buffer[];
  /**
   * The joined JSON of a choice of items (`flows` array, then `content`), for choices that
   * recur (most sessions of one audience mix get the same items). Dropped with the view, and
   * emptied whenever it would hold more bytes than the items themselves, four times over.
   */
  joined: { byChoice: Map<string, Buffer>; bytes: number; maxBytes: number };
}

interface Translatable {
  record: Record<string, unknown>;
  /** Translation `contentType` names, lowest priority first (the canonical one last). */
  types: string[];
  /** Flow steps: their own translations (contentType `flow-step`, contentId = step id). */
  stepIds?: string[];
}

export interface Snapshot {
  tenantId: string;
  version: number;
  frequency: FrequencySettings;
  /** Priority order: published (else created) first, then id. */
  flows: Servable[];
  /** Content items and NPS surveys together, same order. */
  content: Servable[];
  audiences: Map<string, RuleNode>;
  /**
   * Audience results per rule context (userId, role, traits, device serialized), for contexts
   * that recur (anonymous visitors, the same user across pages). Bounded; dropped with the snapshot.
   */
  audienceResults: Map<string, Map<string, boolean>>;
  /** Lower-cased codes of the tenant's locales. */
  localeCodes: Set<string>;
  items: { flows: Translatable[]; content: Translatable[] };
  views: Map<string, Promise<LocaleView>>;
}

/** Translation `contentType` names: flows `flow` (alias `flows`), steps `flow-step`, content its slug (alias: singular), NPS `nps-surveys` (alias `nps-survey`). */
export const TRANSLATION_TYPES = {
  flow: ['flows', 'flow'],
  step: ['flow-step'],
  nps: ['nps-survey', 'nps-surveys'],
  content: (slug: string) => (slug.endsWith('s') ? [slug.slice(0, -1), slug] : [slug]),
};

const EPOCH = new Date(0);

type ContentSlug = (typeof CONTENT_TYPES)[number];
const contentCodecs = new Map<string, z.ZodType>();
const contentCodec = (slug: string) => {
  let codec = contentCodecs.get(slug);
  if (!codec) {
    const def = CONTENT_DEFS[slug as ContentSlug];
    codec = def ? recordOf(def) : z.looseObject({});
    contentCodecs.set(slug, codec);
  }
  return codec;
};

/** The record as the dashboard API shows it (wire form); a record its schema refuses is sent as stored. */
function encode(schema: z.ZodType, value: unknown): Record<string, unknown> {
  try {
    return z.encode(schema, value as never) as Record<string, unknown>;
  } catch {
    return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  }
}

const ms = (d: Date | null | undefined) => (d ? d.getTime() : null);

function servable(
  id: string,
  audienceId: string | null,
  expiresAt: Date | null | undefined,
  contains: (string | null | undefined)[],
  rule: UrlRule | null,
): Servable {
  const c = contains.filter((s): s is string => typeof s === 'string' && s.length > 0);
  return {
    id,
    audienceId,
    expiresAt: ms(expiresAt),
    contains: c,
    rule,
    urlBound: c.length > 0 || rule !== null,
  };
}

/** `url_match` → a url rule; the other trigger types may carry a `url` substring. */
function contentTriggerOf(trigger: unknown): { rule: UrlRule | null; url: string | null } {
  if (!trigger || typeof trigger !== 'object') return { rule: null, url: null };
  const t = trigger as Record<string, unknown>;
  if (t.type === 'url_match' && typeof t.pattern === 'string') {
    return {
      rule: { pattern: t.pattern, ...(t.matchType ? { matchType: t.matchType as never } : {}) },
      url: null,
    };
  }
  return { rule: null, url: typeof t.url === 'string' ? t.url : null };
}

function flowRuleOf(trigger: unknown): UrlRule | null {
  if (!trigger || typeof trigger !== 'object') return null;
  const t = trigger as { type?: unknown; config?: unknown };
  if (t.type !== 'URL_MATCH') return null;
  const config = (t.config ?? {}) as Record<string, unknown>;
  // A URL_MATCH trigger without a usable pattern matches nothing.
  return {
    pattern: typeof config.pattern === 'string' ? config.pattern : '\u0000never',
    ...(config.matchType ? { matchType: config.matchType as never } : {}),
  };
}

const byPriority = (a: { at: number; id: string }, b: { at: number; id: string }) =>
  a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

async function readSnapshot(tx: Executor, tenantId: string): Promise<Snapshot> {
  const [head] = await rawQuery<{ version: number | null; settings: unknown }>(
    tx,
    `select (select version from tenant_delivery_versions where tenant_id = $1)::float8 as version,
            (select settings from tenants where id = $1) as settings`,
    [tenantId],
  );
  const flows = await loadDeliverableFlows(tx, tenantId, EPOCH);
  const { content, npsSurveys } = await loadDeliverableContent(tx, tenantId, EPOCH);
  const audienceIds = new Set<string>();
  for (const r of [...flows, ...content, ...npsSurveys]) if (r.audienceId) audienceIds.add(r.audienceId);
  const audiences =
    audienceIds.size > 0 ? await loadLiveAudiences(tx, tenantId, [...audienceIds]) : new Map();
  const localeRows = await rawQuery<{ code: string }>(tx, 'select code from locales where tenant_id = $1', [
    tenantId,
  ]);

  const flowItems = flows
    .map((f) => ({ at: (f.publishedAt ?? f.createdAt).getTime(), id: f.id, f }))
    .sort(byPriority)
    .map(({ f }) => ({
      servable: servable(f.id, f.audienceId, f.expiresAt, [], flowRuleOf(f.trigger)),
      item: {
        record: encode(flowRecord, f),
        types: TRANSLATION_TYPES.flow,
        stepIds: f.steps.map((s) => s.id),
      } satisfies Translatable,
    }));

  const contentItems = [
    ...content.map((c) => {
      const trigger = contentTriggerOf(c.triggerConfig);
      return {
        at: (c.publishedAt ?? c.createdAt).getTime(),
        id: c.id,
        servable: servable(c.id, c.audienceId, c.expiresAt, [c.targetUrl, trigger.url], trigger.rule),
        item: {
          record: encode(contentCodec(c.contentType), c),
          types: TRANSLATION_TYPES.content(c.contentType),
        },
      };
    }),
    ...npsSurveys.map((n) => {
      const trigger = contentTriggerOf(n.triggerConfig);
      return {
        at: (n.publishedAt ?? n.createdAt).getTime(),
        id: n.id,
        servable: servable(n.id, n.audienceId, null, [trigger.url], trigger.rule),
        item: {
          record: { contentType: 'nps-surveys', ...encode(npsSurvey, n) },
          types: TRANSLATION_TYPES.nps,
        },
      };
    }),
  ].sort(byPriority);

  return {
    tenantId,
    version: Number(head?.version ?? 0),
    frequency: frequencyOf(head?.settings),
    flows: flowItems.map((x) => x.servable),
    content: contentItems.map((x) => x.servable),
    audiences,
    localeCodes: new Set(localeRows.map((l) => l.code.toLowerCase())),
    items: { flows: flowItems.map((x) => x.item), content: contentItems.map((x) => x.item) },
    audienceResults: new Map(),
    views: new Map(),
  };
}

/** `fields` of each name in `types`, later names winning. */
function fieldsOf(
  lookup: { fieldsFor(type: string, id: string): TranslatedFields },
  types: string[],
  id: string,
): TranslatedFields | null {
  let merged: Map<string, string> | null = null;
  for (const type of types) {
    const fields = lookup.fieldsFor(type, id);
    if (fields.size === 0) continue;
    merged ??= new Map();
    for (const [k, v] of fields) merged.set(k, v);
  }
  return merged;
}

function translateItem(
  lookup: { fieldsFor(type: string, id: string): TranslatedFields },
  item: Translatable,
): string {
  let record = item.record;
  if (item.stepIds && Array.isArray(record.steps)) {
    let steps: unknown[] | null = null;
    item.stepIds.forEach((stepId, i) => {
      const fields = fieldsOf(lookup, TRANSLATION_TYPES.step, stepId);
      if (!fields) return;
      steps ??= (record.steps as unknown[]).slice();
      steps[i] = applyTranslations(steps[i] as Record<string, unknown>, fields);
    });
    if (steps) record = { ...record, steps };
  }
  const fields = fieldsOf(lookup, item.types, record.id as string);
  if (fields) record = applyTranslations(record, fields);
  return JSON.stringify(record);
}

/** Which translations a requested locale gets: its own code, else its base language, else the default ('' key). */
export function localeKeyOf(snapshot: Pick<Snapshot, 'localeCodes'>, locale: string | undefined): string {
  if (!locale) return '';
  const wanted = locale.trim().toLowerCase().replace(/_/g, '-');
  if (snapshot.localeCodes.has(wanted)) return wanted;
  const dash = wanted.indexOf('-');
  if (dash > 0) {
    const base = wanted.slice(0, dash);
    if (snapshot.localeCodes.has(base)) return base;
  }
  return '';
}

export interface DeliveryCacheOptions {
  database: DatabaseHandle;
  log: Logger;
  /** Tenants kept at once; the least recently loaded is dropped beyond it. */
  maxTenants?: number;
}

export function createDeliveryCache(opts: DeliveryCacheOptions) {
  const maxTenants = opts.maxTenants ?? 5_000;
  const snapshots = new Map<string, Snapshot>();
  const loading = new Map<string, Promise<Snapshot>>();

  const load = (tenantId: string) =>
    opts.database.db.transaction((tx) => readSnapshot(tx, tenantId), {
      isolationLevel: 'repeatable read',
      accessMode: 'read only',
    });

  function keep(snapshot: Snapshot): void {
    const current = snapshots.get(snapshot.tenantId);
    if (current && current.version > snapshot.version) return;
    snapshots.delete(snapshot.tenantId);
    snapshots.set(snapshot.tenantId, snapshot);
    if (snapshots.size > maxTenants) {
      const oldest = snapshots.keys().next().value;
      if (oldest !== undefined) snapshots.delete(oldest);
    }
  }

  async function refresh(tenantId: string, minVersion: number): Promise<Snapshot> {
    for (let attempt = 1; ; attempt++) {
      let pending = loading.get(tenantId);
      if (!pending) {
        const started: Promise<Snapshot> = load(tenantId).finally(() => {
          if (loading.get(tenantId) === started) loading.delete(tenantId);
        });
        loading.set(tenantId, started);
        pending = started;
      }
      const snapshot = await pending;
      keep(snapshot);
      // A load that began before the change this session saw is too old: load again (a load
      // started now reads at least that version; the bound only guards against the impossible).
      if (snapshot.version >= minVersion || attempt >= 3) return snapshot;
    }
  }

  async function buildView(snapshot: Snapshot, key: string): Promise<LocaleView> {
    const refs: { contentType: string; contentId: string }[] = [];
    for (const list of [snapshot.items.flows, snapshot.items.content]) {
      for (const item of list) {
        for (const type of item.types) refs.push({ contentType: type, contentId: item.record.id as string });
        for (const stepId of item.stepIds ?? []) {
          for (const type of TRANSLATION_TYPES.step) refs.push({ contentType: type, contentId: stepId });
        }
      }
    }
    const lookup = await loadTranslations(opts.database.db, snapshot.tenantId, key || undefined, refs);
    const flows = snapshot.items.flows.map((item) => Buffer.from(translateItem(lookup, item)));
    const content = snapshot.items.content.map((item) => Buffer.from(translateItem(lookup, item)));
    let itemBytes = 0;
    for (const b of [...flows, ...content]) itemBytes += b.length;
    return { flows, content, joined: { byChoice: new Map(), bytes: 0, maxBytes: 4 * itemBytes + 4096 } };
  }

  return {
    /** The tenant's snapshot at `minVersion` or newer (a value when cached, else a promise). */
    snapshot(tenantId: string, minVersion: number): Snapshot | Promise<Snapshot> {
      const current = snapshots.get(tenantId);
      if (current && current.version >= minVersion) return current;
      return refresh(tenantId, minVersion);
    },

    /** The items serialized in `locale` (fallback: base language, default locale, original). */
    view(snapshot: Snapshot, locale: string | undefined): Promise<LocaleView> {
      const key = localeKeyOf(snapshot, locale);
      let view = snapshot.views.get(key);
      if (!view) {
        view = buildView(snapshot, key);
        snapshot.views.set(key, view);
        view.catch((err) => {
          snapshot.views.delete(key);
          opts.log.warn({ err, tenantId: snapshot.tenantId }, 'sdk delivery view failed to load');
        });
      }
      return view;
    },

    /** Drops a tenant (tests, memory pressure); the next session reloads it. */
    forget(tenantId: string): void {
      snapshots.delete(tenantId);
    },
  };
}
export type DeliveryCache = ReturnType<typeof createDeliveryCache>;
