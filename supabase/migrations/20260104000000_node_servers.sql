-- Several Node servers on one PostgreSQL (issue 26): what the servers share besides the leads, so that two or more
-- `npm start` processes behind a load balancer behave as one. The SQLite server keeps these in memory or in DATA_DIR
-- (one process alone), so SQLite has no such tables.
--
-- rate_limit_counts: registrations a minute per client address (RATE_LIMIT_PER_MINUTE), one row per address and
--                    minute, counted by every server; rows of past minutes are deleted as new ones come.
-- server_secrets:    the keys every server must agree on (the unsubscribe links'), made once by the first server that
--                    needs one. Never the suppression list's key (SUPPRESSION_SECRET), which stays outside the database.
-- visit_salts:       the visit counter's salt of each day (site/visit-counter.ts), so one visitor seen by two servers
--                    is one visitor; deleted once its day is over, with that day's visitor hashes.
-- visit_visitors:    the hashes of the visitors seen today (salted, so no address or User-Agent can be read back).
-- daily_runs:        which server runs a once-a-day job (the retention) each day: the first to insert the row.
--
-- Only the owner (the Node server connects as it) reads or writes them: row level security is on with no policy, and
-- the grants Supabase's default privileges hand to its API roles are taken back, so anon, authenticated and the
-- function's lead_writer see nothing.

create table if not exists public.rate_limit_counts (
  key          text        not null,
  window_start timestamptz not null,
  hits         integer     not null default 0,
  primary key (key, window_start)
);
create index if not exists rate_limit_counts_age on public.rate_limit_counts (window_start);

create table if not exists public.server_secrets (
  name       text        primary key,
  value      text        not null,
  created_at timestamptz not null default now()
);

create table if not exists public.visit_salts (
  day  date  primary key,
  salt bytea not null
);

create table if not exists public.visit_visitors (
  day     date not null,
  visitor text not null,
  primary key (day, visitor)
);

create table if not exists public.daily_runs (
  job        text        not null,
  day        date        not null,
  started_at timestamptz not null default now(),
  primary key (job, day)
);

alter table public.rate_limit_counts enable row level security;
alter table public.server_secrets enable row level security;
alter table public.visit_salts enable row level security;
alter table public.visit_visitors enable row level security;
alter table public.daily_runs enable row level security;
revoke all on table public.rate_limit_counts, public.server_secrets, public.visit_salts, public.visit_visitors, public.daily_runs
  from anon, authenticated, service_role, lead_writer;

comment on table public.rate_limit_counts is 'Registrations a minute per client address, counted by every Node server on this database.';
comment on table public.server_secrets is 'Keys the Node servers share (the unsubscribe links''), made once.';
comment on table public.visit_salts is 'The visit counter''s salt of today, shared by the Node servers; past days are deleted.';
comment on table public.visit_visitors is 'Salted hashes of today''s visitors, so a visitor seen by two servers counts once; past days are deleted.';
comment on table public.daily_runs is 'Which day a once-a-day job (retention) was claimed by one of the Node servers.';
