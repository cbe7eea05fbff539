import type { Executor } from '../../db/client.js';
import { fingerprintIdentity } from '../../engine/fingerprint.js';
import { sha256 } from '../../platform/crypto.js';
import { findContentTargets, setContentFingerprints } from '../content/index.js';
import type { EventEffect, ProcessedBatch } from '../events/index.js';
import { findStepTargets, setStepFingerprints } from '../flows/index.js';
import { bucketsOf, chooseServed, lookupReportOf, sightingsOf, type TenantReport } from './engine/health.js';
import { addFingerprints, addLookups, fingerprintCandidates } from './store.js';

/**
 * TARGET_LOOKUP events become target health and fingerprints (issue 40). Per chunk: the reports
 * are checked (engine/health.ts) and kept only for targets of the batch's tenant that exist (one
 * query for steps, one for tooltips and beacons); their counts are summed per target, selector
 * and hour and written in one statement; their fingerprints summed per target, selector and
 * identity and written in one statement; then, for the targets whose reported selector is their
 * current one, the fingerprint they serve is chosen again (`chooseServed`) and written to the step
 * or item only when it changes (which moves the tenant's delivery version). A chunk without
 * TARGET_LOOKUP costs one pass over its events.
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

async function applyLookups(tx: Executor, batches: ProcessedBatch[]): Promise<void> {
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

export const targetLookupsEffect: EventEffect = {
  name: 'target-lookups',
  apply: applyLookups,
};
