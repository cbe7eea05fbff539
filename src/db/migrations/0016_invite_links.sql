-- Invite links can be listed and revoked. A revoked link gets `revoked_at` and its `expires_at`
-- moved to the revocation time, so acceptance (which checks only the token and the expiry)
-- refuses it too. The indexes serve the tenant's list (newest first) and the revocation of the
-- links a removed or demoted member created.
alter table invite_links add column revoked_at timestamptz;
create index invite_links_tenant_created_idx on invite_links (tenant_id, created_at, id);
create index invite_links_tenant_creator_idx on invite_links (tenant_id, created_by);
