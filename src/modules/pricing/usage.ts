import { and, count, eq, gt, gte, isNull, lt, ne, or, sql, sum } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { sqlRows } from '../../db/raw.js';
import { aiTokenUsage, apiKeys, endUsers, flows, members } from '../../db/schema/index.js';
import type { PlanLimitKey } from './keys.js';

export interface UsagePeriod {
  start: Date;
  end: Date;
  now: Date;
}

/**
 * What a tenant uses of each limited resource, counted from the records themselves (no
 * counters to drift):
 * - flows: not archived; apiKeys: neither revoked nor expired; members: accepted and pending;
 * - activeUsers: end users seen since the period started; aiTokens: tokens spent in the period;
 * - journeys, experiments: not archived, once their tables exist (0 before).
 */
export async function countUsage(
  exec: Executor,
  tenantId: string,
  key: PlanLimitKey,
  period: UsagePeriod,
): Promise<number> {
  switch (key) {
    case 'flows':
      return one(
        exec
          .select({ n: count() })
          .from(flows)
          .where(and(eq(flows.tenantId, tenantId), ne(flows.status, 'ARCHIVED'))),
      );
    case 'apiKeys':
      return one(
        exec
          .select({ n: count() })
          .from(apiKeys)
          .where(
            and(
              eq(apiKeys.tenantId, tenantId),
              isNull(apiKeys.revokedAt),
              or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, period.now)),
            ),
          ),
      );
    case 'members':
      return one(exec.select({ n: count() }).from(members).where(eq(members.tenantId, tenantId)));
    case 'activeUsers':
      return one(
        exec
          .select({ n: count() })
          .from(endUsers)
          .where(and(eq(endUsers.tenantId, tenantId), gte(endUsers.lastSeenAt, period.start))),
      );
    case 'aiTokens':
      return one(
        exec
          .select({ n: sum(aiTokenUsage.tokens) })
          .from(aiTokenUsage)
          .where(
            and(
              eq(aiTokenUsage.tenantId, tenantId),
              gte(aiTokenUsage.createdAt, period.start),
              lt(aiTokenUsage.createdAt, period.end),
            ),
          ),
      );
    case 'journeys':
      return countIfTable(exec, 'journeys', tenantId);
    case 'experiments':
      return countIfTable(exec, 'experiments', tenantId);
  }
}

async function one(query: Promise<{ n: number | string | null }[]>): Promise<number> {
  const [row] = await query;
  return Number(row?.n ?? 0);
}

/**
 * Journeys and experiments are counted through SQL until their modules exist; both carry a
 * `status` whose archived value is ARCHIVED (journeys) or archived (experiments).
 */
async function countIfTable(exec: Executor, table: 'journeys' | 'experiments', tenantId: string) {
  const exists = await sqlRows<{ present: boolean }>(
    exec,
    sql`select to_regclass(${table}) is not null as present`,
  );
  if (!exists[0]?.present) return 0;
  const rows = await sqlRows<{ n: number | string }>(
    exec,
    sql`select count(*) as n from ${sql.identifier(table)}
        where tenant_id = ${tenantId} and status not in ('ARCHIVED', 'archived')`,
  );
  return Number(rows[0]?.n ?? 0);
}

/** `execute` answers `{ rows }` on both drivers. */
