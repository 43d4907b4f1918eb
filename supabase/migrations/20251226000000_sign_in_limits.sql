-- Sign-in limits (issue 21, item 3): the sign-in limiter's counts (src/server/registration/sign-in-limits.ts) kept in
-- the database, so that several servers in front of one database count failures together. A new file: shipped
-- migrations are never edited. The SQLite store (src/server/sqlite-store.ts, schema version 7) makes the same tables.
--
-- sign_in_failures: one row per failed sign-in per key it counts under ('address:…', 'network:…', 'account:…'),
--                   forgotten once older than the budgets' window.
-- sign_in_devices:  devices that signed in successfully (the SHA-256 of their cookie, never the cookie itself), exempt
--                   from the per-account and per-network budgets until expires_at (30 days).
--
-- Only the owner reads or writes them (the leads page and the studio connect as it): row level security is on with
-- no policy, and the grants Supabase's default privileges hand to its API roles are taken back, so anon,
-- authenticated and the function's lead_writer see nothing.

create table if not exists public.sign_in_failures (
  key       text        not null,
  failed_at timestamptz not null
);
create index if not exists sign_in_failures_key on public.sign_in_failures (key, failed_at);
create index if not exists sign_in_failures_age on public.sign_in_failures (failed_at);

create table if not exists public.sign_in_devices (
  device_hash text        primary key,
  account     text        not null,
  expires_at  timestamptz not null
);

alter table public.sign_in_failures enable row level security;
alter table public.sign_in_devices enable row level security;
revoke all on table public.sign_in_failures, public.sign_in_devices from anon, authenticated, service_role;

comment on table public.sign_in_failures is 'Recent failed sign-ins by address, network and account: the sign-in limiter''s counts.';
comment on table public.sign_in_devices is 'Devices that signed in (hash of their cookie), exempt from the account and network budgets until expires_at.';
