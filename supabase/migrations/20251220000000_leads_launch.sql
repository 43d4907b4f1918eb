-- Launches (issue 10): one backend for every development, each lead attributed to the launch it was made for. A new
-- file: shipped migrations are never edited. The SQLite store (src/server/sqlite-store.ts, schema version 6) makes the
-- same change.
--
-- leads.launch: the launch's slug (page.config.json "launch": { "slug" }). Null on leads stored before this
-- migration: they belong to the default launch (the root page.config.json), and the store reads them as it, in every
-- list and filter. Existing rows are not rewritten: the database does not know the default launch's slug.
-- leads_launch_newest: one launch's leads newest first, paged by (created_at, id), as leads_newest does for all.
--
-- The function's role (20251201000100_lead_writer_role.sql) stores and reads the column: its table-wide grants cover
-- it already, and the grant below says so for this column alone, so it holds even if those are ever narrowed. Like
-- every stored value but withdrawn_at, it may never update it: a lead's launch does not change.

alter table public.leads add column if not exists launch text;
comment on column public.leads.launch is 'The slug of the launch (development) the registration was made for; null on leads stored before 20251220000000, which belong to the default launch.';

create index if not exists leads_launch_newest on public.leads (launch, created_at, id);

grant select (launch), insert (launch) on table public.leads to lead_writer;
