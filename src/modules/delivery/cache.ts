import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { DatabaseHandle, Executor } from '../../db/client.js';
import type { RuleNode } from '../../engine/rules.js';
import { loadLiveAudiences } from '../audiences/index.js';
import { applyTranslations, loadTranslations, type TranslatedFields } from '../translations/index.js';
import type { DeliveryContributor, DeliveryItem } from './contract.js';
import type { Candidates, FrequencySettings, Servable } from './engine/choose-session.js';
import { byPriority, type DeliveryPolicy, isNeutralPolicy } from './engine/policy.js';
import { TRANSLATION_TYPES, withPolicyFields } from './items.js';
import { policyOf } from './policy-schemas.js';
import { listLocaleCodes, readSnapshotHead } from './store.js';

/**
 * The per-tenant DELIVERY cache: what `POST /api/sdk/session` may serve a tenant, prepared once.
 *
 * A snapshot holds every contributor's part (flows with steps, content items and NPS surveys,
 * and what experiments and journeys choose from), the rule trees of the audiences they use, the
 * frequency settings, and per requested locale the translated, already-serialized JSON of every
 * item. A session then only chooses (engine/choose-session.ts) and concatenates bytes.
 *
 * Freshness without reading other modules' code paths: database triggers (migration 0014) bump
 * `tenant_delivery_versions.version` at commit of any transaction that changes what a snapshot
 * holds. Each session reads the tenant's version in the same statement as its end user
 * (lookup.ts); a snapshot older than that version is reloaded before answering. The snapshot
 * itself reads the version in the same REPEATABLE READ transaction as the data, so its version
 * describes exactly what it holds. Hence no instance ever serves content older than a change
 * that committed before the session's statement ran, whichever instance made the change.
 *
 * Expiry is evaluated per request (items are loaded whatever their `expiresAt`), so an item stops
 * being served the moment it expires, before the background job archives it.
 */

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

export interface Snapshot {
  tenantId: string;
  version: number;
  frequency: FrequencySettings;
  /** The tenant's delivery policy; null when it holds nothing back (the session's fast path). */
  policy: DeliveryPolicy | null;
  /** Delivery order: priority descending, then most recently published, then id. */
  flows: Servable[];
  /** Content items and NPS surveys together, same order. */
  content: Servable[];
  audiences: Map<string, RuleNode>;
  /**
   * Audience results per rule context (userId, role, traits, device serialized), for contexts
   * that recur (anonymous visitors, the same user across pages). Bounded; dropped with the snapshot.
   */
  audienceResults: Map<string, Map<string, boolean>>;
  /**
   * The candidates (engine `candidatesOf`) per rule context and url, with the memo key of their
   * joined JSON once computed. Bounded; dropped with the snapshot.
   */
  candidates: Map<string, SessionCandidates>;
  /** Lower-cased codes of the tenant's locales. */
  localeCodes: Set<string>;
  /** Each contributor's `data`, by contributor name. */
  parts: Map<string, unknown>;
  items: { flows: DeliveryItem[]; content: DeliveryItem[] };
  views: Map<string, Promise<LocaleView>>;
}

export interface SessionCandidates extends Candidates {
  /** `choiceKey` of the candidates (sdk/serve-session.ts), set on first use. */
  key?: string;
}

export const DEFAULT_FREQUENCY: FrequencySettings = { repeatCompleted: false, repeatDismissed: false };

/** Tenant setting `settings.frequency`; anything but a boolean reads as the default (false). */
const frequencySettings = z
  .object({
    frequency: z
      .object({
        repeatCompleted: z.boolean().catch(DEFAULT_FREQUENCY.repeatCompleted),
        repeatDismissed: z.boolean().catch(DEFAULT_FREQUENCY.repeatDismissed),
      })
      .catch(DEFAULT_FREQUENCY),
  })
  .catch({ frequency: DEFAULT_FREQUENCY });

export const frequencyOf = (settings: unknown): FrequencySettings =>
  frequencySettings.parse(settings ?? {}).frequency;

/**
 * One item per record: two contributors may bring the same one (a published flow that is also a
 * journey's content). The one served on its own wins over an on-demand copy.
 */
export function oncePerItem(items: DeliveryItem[]): DeliveryItem[] {
  const byKey = new Map<string, DeliveryItem>();
  for (const item of items) {
    const key = `${item.kind}:${item.servable.id}`;
    const seen = byKey.get(key);
    if (!seen || (seen.servable.onDemand && !item.servable.onDemand)) byKey.set(key, item);
  }
  return byKey.size === items.length ? items : [...byKey.values()];
}

/** Delivery order: priority descending, then most recently published, then id (engine/policy.ts). */
const inDeliveryOrder = (a: DeliveryItem, b: DeliveryItem) => byPriority(a.servable, b.servable);

async function readSnapshot(
  tx: Executor,
  tenantId: string,
  contributors: readonly DeliveryContributor[],
): Promise<Snapshot> {
  const head = await readSnapshotHead(tx, tenantId);
  const items: DeliveryItem[] = [];
  const parts = new Map<string, unknown>();
  const audienceIds = new Set<string>();
  // One transaction, one statement at a time: contributors load in turn.
  for (const contributor of contributors) {
    const part = await contributor.load(tx, tenantId);
    items.push(...(part.items ?? []));
    for (const id of part.audienceIds ?? []) audienceIds.add(id);
    if (part.data !== undefined) parts.set(contributor.name, part.data);
  }
  const unique = oncePerItem(items).map((item) => ({
    ...item,
    servable: withPolicyFields(item.kind, item.record, item.at, item.servable),
  }));
  for (const item of unique) if (item.servable.audienceId) audienceIds.add(item.servable.audienceId);
  const audiences =
    audienceIds.size > 0 ? await loadLiveAudiences(tx, tenantId, [...audienceIds]) : new Map();
  const localeCodes = await listLocaleCodes(tx, tenantId);
  const flows = unique.filter((i) => i.kind === 'flow').sort(inDeliveryOrder);
  const content = unique.filter((i) => i.kind === 'content').sort(inDeliveryOrder);
  const policy = policyOf(head?.policy);
  return {
    tenantId,
    version: Number(head?.version ?? 0),
    frequency: frequencyOf(head?.settings),
    policy: isNeutralPolicy(policy) ? null : policy,
    flows: flows.map((i) => i.servable),
    content: content.map((i) => i.servable),
    audiences,
    audienceResults: new Map(),
    candidates: new Map(),
    localeCodes: new Set(localeCodes.map((code) => code.toLowerCase())),
    parts,
    items: { flows, content },
    views: new Map(),
  };
}

type FieldsLookup = { fieldsFor(type: string, id: string): TranslatedFields };

/** `fields` of each name in `types`, later names winning. */
function fieldsOf(lookup: FieldsLookup, types: string[], id: string): TranslatedFields | null {
  let merged: Map<string, string> | null = null;
  for (const type of types) {
    const fields = lookup.fieldsFor(type, id);
    if (fields.size === 0) continue;
    merged ??= new Map();
    for (const [k, v] of fields) merged.set(k, v);
  }
  return merged;
}

function translateItem(lookup: FieldsLookup, item: DeliveryItem): string {
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
  const fields = fieldsOf(lookup, item.translationTypes, item.servable.id);
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
  contributors: readonly DeliveryContributor[];
  /** Tenants kept at once; the least recently used is dropped beyond it. */
  maxTenants?: number;
}

export function createDeliveryCache(opts: DeliveryCacheOptions) {
  const snapshots = new LRUCache<string, Snapshot>({ max: opts.maxTenants ?? 5_000 });
  const loading = new Map<string, Promise<Snapshot>>();

  const load = (tenantId: string) =>
    opts.database.db.transaction((tx) => readSnapshot(tx, tenantId, opts.contributors), {
      isolationLevel: 'repeatable read',
      accessMode: 'read only',
    });

  function keep(snapshot: Snapshot): void {
    const current = snapshots.get(snapshot.tenantId);
    if (current && current.version > snapshot.version) return;
    snapshots.set(snapshot.tenantId, snapshot);
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
    for (const item of [...snapshot.items.flows, ...snapshot.items.content]) {
      for (const type of item.translationTypes) refs.push({ contentType: type, contentId: item.servable.id });
      for (const stepId of item.stepIds ?? []) {
        for (const type of TRANSLATION_TYPES.step) refs.push({ contentType: type, contentId: stepId });
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
