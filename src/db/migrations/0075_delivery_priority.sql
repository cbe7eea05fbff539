-- Delivery priority (issue 38): which auto-start items a session serves first when a tenant's
-- delivery policy caps them. Higher first; ties: most recently published first. `bypass_caps`
-- marks an item the policy never holds back (a critical announcement). Defaults change nothing.
alter table flows add column priority integer not null default 0;
alter table flows add column bypass_caps boolean not null default false;
alter table content_items add column priority integer not null default 0;
alter table content_items add column bypass_caps boolean not null default false;
