import type { DatabaseHandle, Executor } from '../../db/client.js';
import { createBatcher } from '../../platform/batcher.js';
import type { SessionChoice } from './engine/choose-session.js';
import { type DeliveryPolicy, PERIOD_MS, type PolicyHistory, type ServedEntry } from './engine/policy.js';
import { lockEndUsers, readDismissals, readServes, recordServes } from './store.js';

/**
 * The serve ledger (table `end_user_serves`): what each end user was served to start by itself,
 * for the delivery policy's caps and cooldown. Only sessions of tenants with a policy touch it.
 *
 * Taken at serve time, atomically: a session's choice under a policy is made inside one
 * transaction that first locks its end user's row (FOR UPDATE), then reads the user's history,
 * decides (the pure `chooseSession`), and records what it served before committing. Two
 * concurrent sessions of one user, on any instances, decide one after the other, so they cannot
 * both take the last slot. Concurrent sessions of one instance share one transaction (a batch,
 * like the session lookup), deciding in arrival order over a history that includes the earlier
 * ones' serves.
 */

/**
 * A re-serve of an item the ledger holds as served this recently is not written again: caps and
 * the cooldown see each item's last serve with this precision (docs/delivery-policy.md).
 */
export const REFRESH_MS = 60_000;

/** Whether every item the choice counts was served within `REFRESH_MS` already (nothing to take or write). */
function takesNothingNew(choice: SessionChoice, history: PolicyHistory, nowMs: number): boolean {
  for (const c of choice.counted ?? []) {
    const seen = history.served.find((s) => s.itemId === c.id);
    if (!seen || nowMs - seen.at >= REFRESH_MS) return false;
  }
  return true;
}

type PeekEntry = Pick<ServeEntry, 'tenantId' | 'endUserId' | 'nowMs' | 'policy'>;

export interface ServeEntry {
  tenantId: string;
  endUserId: string;
  nowMs: number;
  policy: DeliveryPolicy;
  /** The session's choice given this user's history (pure). */
  decide(history: PolicyHistory): SessionChoice;
}

/** How far back the policy looks: the longest window, or the cooldown when longer. */
const lookBackMs = (policy: DeliveryPolicy) => Math.max(PERIOD_MS.week, policy.cooldownSeconds * 1000);

/** The histories of `endUserIds` of one tenant as of `nowMs` (mutable: a batch appends its serves). */
async function readHistories(
  exec: Executor,
  tenantId: string,
  endUserIds: string[],
  nowMs: number,
  policy: DeliveryPolicy,
): Promise<Map<string, { served: ServedEntry[]; dismissedAt: Map<string, number> }>> {
  const out = new Map<string, { served: ServedEntry[]; dismissedAt: Map<string, number> }>();
  for (const id of endUserIds) out.set(id, { served: [], dismissedAt: new Map() });
  const rows = await readServes(exec, tenantId, endUserIds, new Date(nowMs - lookBackMs(policy)));
  for (const r of rows)
    out.get(r.endUserId)?.served.push({ itemId: r.itemId, scopes: r.scopes, at: r.lastAt.getTime() });
  if (policy.afterDismissDays !== null) {
    for (const d of await readDismissals(exec, tenantId, endUserIds)) {
      if (d.dismissedAt) out.get(d.endUserId)?.dismissedAt.set(d.itemId, d.dismissedAt.getTime());
    }
  }
  return out;
}

export function createServeLedger(database: DatabaseHandle) {
  async function run(entries: ServeEntry[]): Promise<SessionChoice[]> {
    return database.db.transaction(async (tx) => {
      await lockEndUsers(
        tx,
        entries.map((e) => e.tenantId),
        entries.map((e) => e.endUserId),
      );
      const byTenant = new Map<string, ServeEntry[]>();
      for (const e of entries) {
        const list = byTenant.get(e.tenantId);
        if (list) list.push(e);
        else byTenant.set(e.tenantId, [e]);
      }
      const histories = new Map<string, { served: ServedEntry[]; dismissedAt: Map<string, number> }>();
      for (const [tenantId, list] of byTenant) {
        // Sessions of one tenant share its snapshot's policy (the latest of the batch's).
        const policy = list[list.length - 1]!.policy;
        const nowMs = Math.max(...list.map((e) => e.nowMs));
        const read = await readHistories(
          tx,
          tenantId,
          [...new Set(list.map((e) => e.endUserId))],
          nowMs,
          policy,
        );
        for (const [id, h] of read) histories.set(`${tenantId}:${id}`, h);
      }
      const writes: Parameters<typeof recordServes>[1] = [];
      const choices = entries.map((e) => {
        const history = histories.get(`${e.tenantId}:${e.endUserId}`)!;
        const choice = e.decide(history);
        for (const c of choice.counted ?? []) {
          // Later sessions of this batch see this serve.
          const at = history.served.findIndex((s) => s.itemId === c.id);
          const entry = { itemId: c.id, scopes: c.scopes, at: e.nowMs };
          if (at >= 0) history.served[at] = entry;
          else history.served.push(entry);
          writes.push({
            tenantId: e.tenantId,
            endUserId: e.endUserId,
            itemId: c.id,
            scopes: [...c.scopes],
            at: new Date(e.nowMs),
          });
        }
        return choice;
      });
      await recordServes(tx, writes);
      return choices;
    });
  }

  const batcher = createBatcher<ServeEntry, SessionChoice>({ maxBatch: 200, run });

  /** Concurrent sessions' unlocked history reads, one statement per tenant of a batch. */
  const peeker = createBatcher<PeekEntry, PolicyHistory>({
    maxBatch: 500,
    run: async (entries) => {
      const byTenant = new Map<string, PeekEntry[]>();
      for (const e of entries) {
        const list = byTenant.get(e.tenantId);
        if (list) list.push(e);
        else byTenant.set(e.tenantId, [e]);
      }
      const found = new Map<string, PolicyHistory>();
      for (const [tenantId, list] of byTenant) {
        const last = list[list.length - 1]!;
        const nowMs = Math.max(...list.map((e) => e.nowMs));
        const ids = [...new Set(list.map((e) => e.endUserId))];
        for (const [id, h] of await readHistories(database.db, tenantId, ids, nowMs, last.policy))
          found.set(`${tenantId}:${id}`, h);
      }
      return entries.map((e) => found.get(`${e.tenantId}:${e.endUserId}`)!);
    },
  });

  return {
    /**
     * The session's choice. First over the user's history read without a lock: when it serves
     * only items the ledger already holds as served within `REFRESH_MS` (a page view after a page
     * view), it takes no new slot and needs no write, and is final. Otherwise it is decided
     * again under the user's lock and recorded.
     */
    async serve(entry: ServeEntry): Promise<SessionChoice> {
      const history = await peeker.load(entry);
      const choice = entry.decide(history);
      if (takesNothingNew(choice, history, entry.nowMs)) return choice;
      return batcher.load(entry);
    },
    /** One user's history as it stands (the explanation: read only, no lock). */
    async history(
      tenantId: string,
      endUserId: string,
      nowMs: number,
      policy: DeliveryPolicy,
    ): Promise<PolicyHistory> {
      const read = await readHistories(database.db, tenantId, [endUserId], nowMs, policy);
      return read.get(endUserId)!;
    },
  };
}
export type ServeLedger = ReturnType<typeof createServeLedger>;
