-- Periodic jobs that must run once across instances, at most once per interval
-- (src/platform/job-lease.ts): a run claims its job's row when it is due, and sets when the job
-- is due next. A run that dies holds the lease until `due_at`, then another instance runs it.
create table job_leases (
  name text primary key,
  due_at timestamptz not null,
  holder uuid,
  last_run_at timestamptz
);
