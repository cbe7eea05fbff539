-- Analytics rollups. Event processing (src/modules/analytics/rollups-effect.ts) maintains them
-- in the transaction that marks event batches processed, so each event counts exactly once;
-- the analytics routes read only these tables, never the event log. Days are UTC days of the
-- event's timestamp. No foreign keys: the writes are hot, and a row naming a deleted flow is
-- simply never asked for.

-- Events per tenant, day and type → totalEvents.
create table analytics_daily_events (
  tenant_id uuid not null,
  day date not null,
  type text not null,
  events bigint not null,
  primary key (tenant_id, day, type)
);

-- Flow lifecycle events per flow and day (event counts) → totalStarts, completed, dismissed,
-- skipped, and the overview's flowCompletions.
create table analytics_flow_daily (
  tenant_id uuid not null,
  flow_id uuid not null,
  day date not null,
  starts bigint not null default 0,
  completed bigint not null default 0,
  dismissed bigint not null default 0,
  skipped bigint not null default 0,
  primary key (tenant_id, flow_id, day)
);
create index analytics_flow_daily_tenant_day_idx on analytics_flow_daily (tenant_id, day) include (starts, completed);

-- Distinct users over any range of days, exactly and without DISTINCT. A "scope" is what is
-- counted: `active` (any event of the tenant), `step:<flowId>:<stepIndex>` (STEP_VIEWED) and
-- `done:<flowId>` (FLOW_COMPLETED). `user_key` is `u:<userId>`, or `a:<anonymousId>` (scope
-- `active` only); events with neither make no row in `active`, and a flow event without userId
-- counts once by itself (DECISIONS §12) without any state row.
--
-- analytics_user_days: the set of days each user was active in each scope (bit i of `days` = day
-- `origin` + i). Event processing locks a user's row while it adds days, so concurrent processors
-- serialize per user.
create table analytics_user_days (
  tenant_id uuid not null,
  scope text not null,
  user_key text not null,
  origin date not null,
  days varbit not null,
  primary key (tenant_id, scope, user_key)
);

-- analytics_reach: every (user, active day) as a count under (day, the user's previous active day
-- in the scope, '-infinity' for the first). The users active in [s, e] are exactly the points
-- with s <= day <= e and prev_day < s (each such user's first day in the range), so a range
-- costs a scan of at most days × distinct gaps rows, whatever the number of users or events.
create table analytics_reach (
  tenant_id uuid not null,
  scope text not null,
  day date not null,
  prev_day date not null,
  users bigint not null,
  primary key (tenant_id, scope, day, prev_day)
);

-- Click heatmaps per page (`url_key` = md5 of the event url without its fragment) and day.
-- Points: CLICK / RAGE_CLICK / DEAD_CLICK events with coordinates (rounded to whole pixels), by
-- selector ('' when absent; truncated to 512 characters).
create table analytics_heatmap_points (
  tenant_id uuid not null,
  url_key uuid not null,
  day date not null,
  x integer not null,
  y integer not null,
  selector text not null,
  clicks bigint not null default 0,
  rage_clicks bigint not null default 0,
  dead_clicks bigint not null default 0,
  primary key (tenant_id, url_key, day, x, y, selector)
);

-- Elements: the same events by selector, with or without coordinates ('' = no selector; its
-- clicks still count in totalClicks).
create table analytics_heatmap_elements (
  tenant_id uuid not null,
  url_key uuid not null,
  day date not null,
  selector text not null,
  clicks bigint not null default 0,
  rage_clicks bigint not null default 0,
  dead_clicks bigint not null default 0,
  primary key (tenant_id, url_key, day, selector)
);
