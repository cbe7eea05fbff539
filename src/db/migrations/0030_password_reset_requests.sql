-- Password-reset requests wait here for a background worker (issue 17). The request route only
-- inserts a row, whether or not the email belongs to an account, so both answers cost the same;
-- the worker looks the account up, issues the token, sends the mail and deletes the row.
create table password_reset_requests (
  id uuid primary key,
  email text not null,
  requested_at timestamptz not null default now()
);
