-- Batches whose processing failed are retried on their own, not in every chunk: this finds them
-- without scanning the whole backlog.
create index event_batches_retry_idx on event_batches (id) where processed_at is null and attempts > 0;
