create table tenants (
  id uuid primary key,
  name text not null,
  slug text not null,
  settings jsonb not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index tenants_slug_key on tenants (slug);
create unique index tenants_name_lower_key on tenants (lower(name));

create table users (
  id uuid primary key,
  email text not null,
  name text,
  password_hash text,
  auth_provider text not null default 'password',
  google_subject text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index users_email_lower_key on users (lower(email));

create table members (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  user_id uuid references users (id) on delete cascade,
  email text not null,
  role text not null check (role in ('OWNER', 'ADMIN', 'EDITOR', 'VIEWER')),
  invited_by uuid,
  is_pending boolean not null default false,
  invite_token_hash text,
  invite_expires_at timestamptz,
  invite_email_status text,
  invite_resend_count integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index members_tenant_email_key on members (tenant_id, lower(email));
create index members_user_idx on members (user_id);
create unique index members_invite_token_key on members (invite_token_hash);

create table invite_links (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  role text not null check (role in ('OWNER', 'ADMIN', 'EDITOR', 'VIEWER')),
  token_hash text not null,
  created_by uuid,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create unique index invite_links_token_key on invite_links (token_hash);

create table sessions (
  id uuid primary key,
  user_id uuid not null references users (id) on delete cascade,
  tenant_id uuid not null references tenants (id) on delete cascade,
  refresh_token_hash text not null,
  refresh_expires_at timestamptz not null,
  revoked_at timestamptz,
  revoked_reason text,
  ip_address text,
  user_agent text,
  created_at timestamptz not null default now(),
  rotated_at timestamptz
);
create index sessions_user_idx on sessions (user_id);

create table password_resets (
  id uuid primary key,
  user_id uuid not null references users (id) on delete cascade,
  token_hash text not null unique,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);

create table api_keys (
  id uuid primary key,
  tenant_id uuid not null references tenants (id) on delete cascade,
  name text not null,
  key_hash text not null,
  key_prefix text not null,
  created_by uuid,
  created_at timestamptz not null default now(),
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz
);
create unique index api_keys_hash_key on api_keys (key_hash);
create index api_keys_tenant_idx on api_keys (tenant_id, created_at);

create table audit_logs (
  id uuid primary key,
  tenant_id uuid not null,
  action text not null,
  entity_type text not null,
  entity_id text,
  actor_id uuid,
  ip_address text,
  metadata jsonb not null default '{}',
  created_at timestamptz not null default now()
);
create index audit_logs_tenant_created_idx on audit_logs (tenant_id, created_at, id);

create table mail_outbox (
  id uuid primary key,
  tenant_id uuid,
  recipient text not null,
  subject text not null,
  body text not null,
  status text not null,
  error text,
  created_at timestamptz not null default now()
);
