-- The studio on PostgreSQL (issue 26): with DATABASE_URL the Node server keeps the studio's accounts, links,
-- sessions, drafts, versions and audit log in the tables of 20251225000000_studio.sql
-- (src/studio/server/postgres-store.ts). What those tables lack for several servers on one database is the studio's
-- key: it signs preview links and the sign-in's device cookies, and a link made on one server must open on the
-- others. On SQLite it is the file DATA_DIR/studio.key; here it is one row, made by the first server that starts.
-- A new file: shipped migrations are never edited.
--
-- Nobody but the owner may touch it: row level security on, no policy, every privilege taken back from anon,
-- authenticated and lead_writer, as for the studio's other tables.

create table if not exists public.studio_settings (
  name  text primary key,
  value text not null
);
comment on table public.studio_settings is 'The studio''s own settings shared by every server, such as its signing key (name ''key''): never shown.';

alter table public.studio_settings enable row level security;
revoke all on table public.studio_settings from anon, authenticated, lead_writer;
