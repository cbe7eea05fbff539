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

  return {
    /** The session's choice, decided under the user's lock and recorded in the ledger. */
    serve: (entry: ServeEntry): Promise<SessionChoice> => batcher.load(entry),
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
