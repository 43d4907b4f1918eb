-- A team editing one launch (issue 44): draft versions and who has the launch open. The studio's tables of
-- 20251225000000_studio.sql keep one draft per launch; two people saving it silently replaced each other's work.
-- studio_draft_versions holds each launch's latest draft version (kept when the draft is published or discarded, so
-- a number is never given twice): a save carries the version it was made from and is refused over a newer one
-- (src/studio/server/store/postgres-team.ts). studio_presence holds each open editor's last heartbeat.
-- A new file: shipped migrations are never edited.
--
-- Nobody but the owner may touch them: row level security on, no policy, every privilege taken back from anon,
-- authenticated and lead_writer, as for the studio's other tables.

create table if not exists public.studio_draft_versions (
  launch   text        primary key,
  version  integer     not null check (version > 0),
  by_email text        not null,
  saved_at timestamptz not null
);
comment on table public.studio_draft_versions is 'Each launch''s latest draft version in the studio: who saved it and when.';

create table if not exists public.studio_presence (
  launch  text        not null,
  editor  text        not null,
  who     text        not null,
  since   timestamptz not null,
  seen_at timestamptz not null,
  primary key (launch, editor)
);
comment on table public.studio_presence is 'The studio''s open editors: one row per open editor, its last heartbeat.';

alter table public.studio_draft_versions enable row level security;
alter table public.studio_presence enable row level security;
revoke all on table public.studio_draft_versions, public.studio_presence from anon, authenticated, lead_writer;
