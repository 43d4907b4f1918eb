-- Several Node servers on one PostgreSQL (issue 26): a publish on one server is served by all, with no shared disk.
-- The server that publishes checks and builds the launch, then keeps the result here, in one transaction: the config
-- text exactly as published and every file of the built folder. Every other server looks every 2 seconds for a
-- launch's number that it has not served yet, writes those files into a new version folder
-- of its own, rewrites its page.config.json to the same bytes, and swaps, as after a publish of its own
-- (src/server/site/shared-builds.ts). Numbers count per launch from 1; two servers publishing one launch at once get
-- two numbers (the primary key refuses the second, which takes the next).
--
-- Built pages hold no personal data. Nobody but the owner (the Node servers' role) may touch them: row level
-- security on with no policy, and every privilege Supabase hands to its API roles and to lead_writer taken back.

create table if not exists public.published_builds (
  launch       text        not null,
  number       integer     not null check (number > 0),
  config_text  text        not null,
  manifest     jsonb       not null,
  published_at timestamptz not null default now(),
  primary key (launch, number)
);

create table if not exists public.published_build_files (
  launch text    not null,
  number integer not null,
  path   text    not null check (path <> '' and path !~ '(^|/)\.\.(/|$)' and path !~ '^/'),
  bytes  bytea   not null,
  primary key (launch, number, path),
  foreign key (launch, number) references public.published_builds (launch, number) on delete cascade
);

alter table public.published_builds enable row level security;
alter table public.published_build_files enable row level security;
revoke all on table public.published_builds, public.published_build_files from anon, authenticated, service_role, lead_writer;

comment on table public.published_builds is 'Each launch''s published versions as built, for every Node server to serve: the config text and its build manifest.';
comment on table public.published_build_files is 'The files of a published build (paths relative to the built folder).';
