import type { Executor } from '../../db/client.js';
import { fingerprintIdentity } from '../../engine/fingerprint.js';
import { sha256 } from '../../platform/crypto.js';
import { findContentTargets, setContentFingerprints } from '../content/index.js';
import type { EffectContext, EventEffect, ProcessedBatch } from '../events/index.js';
import { findStepTargets, setStepFingerprints } from '../flows/index.js';
import { emitWebhookEvents, subscribedTenants, type WebhookEvent } from '../webhooks/index.js';
import {
  becameBroken,
  bucketsOf,
  type Counts,
  chooseServed,
  lookupReportOf,
  noCounts,
  sightingsOf,
  type TenantReport,
} from './engine/health.js';
import { windowsAt } from './health-service.js';
import { addFingerprints, addLookups, fingerprintCandidates, healthRows } from './store.js';

/**
 * TARGET_LOOKUP events become target health and fingerprints (issue 40). Per chunk: the reports
 * are checked (engine/health.ts) and kept only for targets of the batch's tenant that exist (one
 * query for steps, one for tooltips and beacons); their counts are summed per target, selector
 * and hour and written in one statement; their fingerprints summed per target, selector and
 * identity and written in one statement; then, for the targets whose reported selector is their
 * current one, the fingerprint they serve is chosen again (`chooseServed`) and written to the step
 * or item only when it changes (which moves the tenant's delivery version). Targets the chunk
 * turned broken over the last hour send `target.broken` to the tenants subscribed to it. A chunk
 * without TARGET_LOOKUP costs one pass over its events.
 */

/** The key a fingerprint is stored under: the sha256 of its identity (its position left out). */
export const fingerprintKey = (fp: Record<string, unknown>): string => sha256(fingerprintIdentity(fp));

interface Target {
  tenantId: string;
  targetSelector: string | null;
  targetFingerprint: Record<string, unknown> | null;
  kind: 'flow' | 'content';
}

async function loadTargets(tx: Executor, reports: TenantReport[]): Promise<Map<string, Target>> {
  const stepIds = new Set<string>();
  const itemIds = new Set<string>();
  for (const { report } of reports) (report.itemKind === 'flow' ? stepIds : itemIds).add(report.targetId);
  const targets = new Map<string, Target>();
  if (stepIds.size > 0) {
    for (const s of await findStepTargets(tx, [...stepIds])) targets.set(s.id, { ...s, kind: 'flow' });
  }
  if (itemIds.size > 0) {
    for (const c of await findContentTargets(tx, [...itemIds])) targets.set(c.id, { ...c, kind: 'content' });
  }
  return targets;
}

async function applyLookups(tx: Executor, batches: ProcessedBatch[], ctx: EffectContext): Promise<void> {
  const reports: TenantReport[] = [];
  for (const batch of batches) {
    for (const event of batch.events) {
      if (event.type !== 'TARGET_LOOKUP') continue;
      const report = lookupReportOf(event.properties);
      if (report) reports.push({ tenantId: batch.tenantId, at: new Date(event.timestamp), report });
    }
  }
  if (reports.length === 0) return;
  const targets = await loadTargets(tx, reports);
  // Only the tenant's own targets, of the kind reported (an item id of a flow step is not a step's).
  const kept = reports.filter(({ tenantId, report }) => {
    const t = targets.get(report.targetId);
    return t !== undefined && t.tenantId === tenantId && t.kind === report.itemKind;
  });
  if (kept.length === 0) return;
  await addLookups(tx, bucketsOf(kept));
  await emitBrokenTargets(tx, kept, targets, ctx);

  const sightings = sightingsOf(kept, fingerprintKey);
  if (sightings.length === 0) return;
  await addFingerprints(
    tx,
    sightings.map((s) => ({
      tenantId: s.tenantId,
      targetId: s.targetId,
      selector: s.selector,
      fpKey: s.identity,
      fingerprint: s.fingerprint,
      seenCount: s.count,
      picked: false,
      lastSeenAt: s.lastSeenAt,
    })),
  );
  // Served fingerprints: only for what the target's current selector reported.
  const current = new Map<string, { tenantId: string; targetId: string; selector: string }>();
  for (const s of sightings) {
    const t = targets.get(s.targetId)!;
    if (t.targetSelector === s.selector) current.set(s.targetId, s);
  }
  if (current.size === 0) return;
  const candidates = await fingerprintCandidates(tx, [...current.values()]);
  const steps: { tenantId: string; id: string; fingerprint: Record<string, unknown> }[] = [];
  const items: typeof steps = [];
  for (const [targetId, { tenantId }] of current) {
    const t = targets.get(targetId)!;
    const mine = candidates.filter((c) => c.targetId === targetId && c.tenantId === tenantId);
    const served = t.targetFingerprint ? fingerprintKey(t.targetFingerprint) : null;
    const chosen = chooseServed(mine, served);
    if (chosen === null || chosen === served) continue;
    const fingerprint = mine.find((c) => c.key === chosen)!.fingerprint;
    (t.kind === 'flow' ? steps : items).push({ tenantId, id: targetId, fingerprint });
  }
  await setStepFingerprints(tx, steps);
  await setContentFingerprints(tx, items);
}

/**
 * `target.broken` for each target whose current selector's lookups of the last hour this chunk
 * turned broken (`becameBroken`): once per turn. Only tenants subscribed to it cost a query
 * (their targets' counts, after this chunk's were added).
 */
async function emitBrokenTargets(
  tx: Executor,
  kept: TenantReport[],
  targets: Map<string, Target>,
  ctx: EffectContext,
): Promise<void> {
  const current = kept.filter(
    ({ report }) => targets.get(report.targetId)!.targetSelector === report.selector,
  );
  if (current.length === 0) return;
  const subscribed = await subscribedTenants(
    tx,
    current.map((r) => r.tenantId),
    'target.broken',
    ctx,
  );
  if (subscribed.size === 0) return;
  const now = new Date();
  const windows = windowsAt(now);
  // This chunk's lookups of the last hour, per tenant and target.
  const added = new Map<string, Map<string, Counts>>();
  for (const b of bucketsOf(current.filter((r) => subscribed.has(r.tenantId)))) {
    if (b.hour < windows.hourFrom) continue;
    const ofTenant = added.get(b.tenantId) ?? new Map<string, Counts>();
    added.set(b.tenantId, ofTenant);
    const c = ofTenant.get(b.targetId) ?? noCounts();
    ofTenant.set(b.targetId, {
      found: c.found + b.found,
      healed: c.healed + b.healed,
      ambiguous: c.ambiguous + b.ambiguous,
      missing: c.missing + b.missing,
    });
  }
  const events: WebhookEvent[] = [];
  for (const [tenantId, ofTenant] of added) {
    for (const row of await healthRows(tx, tenantId, { ...windows, targetIds: [...ofTenant.keys()] })) {
      const target = targets.get(row.targetId)!;
      const chunk = ofTenant.get(row.targetId);
      if (row.selector !== target.targetSelector || !chunk || !becameBroken(row.lastHour, chunk)) continue;
      events.push({
        tenantId,
        type: 'target.broken',
        timestamp: now,
        data: {
          itemKind: row.itemKind,
          itemId: row.itemId,
          stepId: row.itemKind === 'flow' ? row.targetId : null,
          targetSelector: row.selector,
          lastHour: row.lastHour,
          suggestedSelector: row.suggestedSelector,
        },
      });
    }
  }
  await emitWebhookEvents(tx, events, { now, effects: ctx });
}

export const targetLookupsEffect: EventEffect = {
  name: 'target-lookups',
  apply: applyLookups,
};
