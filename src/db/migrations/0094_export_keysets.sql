-- Streaming exports (docs/export.md): end users and survey responses are read in the order the
-- service stored them, (created_at, id), a page at a time from the last row sent. These indexes
-- make every page one index range, however deep the export is (event batches already have
-- (tenant_id, received_at)).
create index end_users_tenant_created_idx on end_users (tenant_id, created_at, id);
create index survey_responses_tenant_created_idx on survey_responses (tenant_id, created_at, id);
