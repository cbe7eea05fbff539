-- On the embedded database the service stores event batch bodies brotli-compressed (events_br):
-- PGlite compresses a large text value itself with pglz, in WebAssembly on the server's own
-- thread, ~200 µs for an SDK request's 16 kB body; brotli (quality 1, native) takes ~30 µs.
-- On PostgreSQL bodies stay text (events): its own compression runs in the database's process.
alter table event_batches alter column events drop not null;
alter table event_batches add column events_br bytea;
alter table event_batches add constraint event_batches_body_check
  check ((events is null) <> (events_br is null)) not valid;
-- Not validated: every existing row has text and no bytes, and validating would scan the whole
-- log under an exclusive lock at boot. New and updated rows are checked.
