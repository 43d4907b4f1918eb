-- The studio (issue 23): accounts, one-time links, sessions, drafts, versions and the audit log, the same tables
-- as src/studio/server/sqlite-store.ts (schema version 1). The Node server keeps them in SQLite today; a PostgreSQL
-- implementation of the StudioStore contract (src/studio/server/store.ts) will use these.
--
-- Only hashes are stored of one-time link tokens and session ids (SHA-256, hex), and passwords only as scrypt hashes
-- with their salt and parameters: a copy of these tables signs nobody in.
--
-- Nobody but the owner may touch them: row level security is on with no policy, and every privilege that
-- Supabase's default privileges hand to anon and authenticated is taken back. lead_writer (the function's role)
-- gets nothing here either: the studio is not part of the registration function.

create table if not exists public.studio_accounts (
  id                   bigint generated always as identity primary key,
  email                text        not null unique,
  role                 text        not null check (role in ('owner', 'editor', 'sales')),
  launches             jsonb,
  password_hash        text,
  totp_secret          text,
  sessions_valid_after timestamptz not null,
  invited_at           timestamptz not null
);
comment on column public.studio_accounts.launches is 'The launches (slugs) an editor or sales account is limited to; null: every launch.';
comment on column public.studio_accounts.sessions_valid_after is 'Sessions started before this are void: set when the role, launches or password change.';

create table if not exists public.studio_links (
  token_hash text        primary key,
  account_id bigint      not null references public.studio_accounts (id) on delete cascade,
  purpose    text        not null check (purpose in ('invite', 'reset')),
  created_at timestamptz not null,
  expires_at timestamptz not null,
  used_at    timestamptz
);

create table if not exists public.studio_sessions (
  id_hash    text        primary key,
  account_id bigint      not null references public.studio_accounts (id) on delete cascade,
  created_at timestamptz not null,
  expires_at timestamptz not null
);
create index if not exists studio_sessions_account on public.studio_sessions (account_id);

create table if not exists public.studio_drafts (
  launch     text        primary key,
  text       text        not null,
  by_email   text        not null,
  updated_at timestamptz not null
);

create table if not exists public.studio_versions (
  launch        text        not null,
  number        integer     not null,
  text          text        not null,
  by_email      text        not null,
  at            timestamptz not null,
  message       text,
  from_disk     boolean     not null default false,
  restored_from integer,
  primary key (launch, number)
);
comment on column public.studio_versions.text is 'The exact text of the page.config.json published as this version.';

create table if not exists public.studio_audit (
  id     bigint generated always as identity primary key,
  at     timestamptz not null,
  who    text        not null,
  action text        not null,
  launch text,
  detail text
);

alter table public.studio_accounts enable row level security;
alter table public.studio_links enable row level security;
alter table public.studio_sessions enable row level security;
alter table public.studio_drafts enable row level security;
alter table public.studio_versions enable row level security;
alter table public.studio_audit enable row level security;

revoke all on table public.studio_accounts, public.studio_links, public.studio_sessions, public.studio_drafts,
  public.studio_versions, public.studio_audit from anon, authenticated, lead_writer;
revoke all on sequence public.studio_accounts_id_seq, public.studio_audit_id_seq from anon, authenticated, lead_writer;
