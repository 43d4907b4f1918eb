-- Phases (issue 24): each lead records the launch's phase it registered in (page.config.json "phases": coming-soon,
-- vip, public, sold-out …), as the function decided it at that moment. A new file: shipped migrations are never
-- edited. The SQLite store (src/server/store/sqlite/sqlite-schema.ts, schema version 9) makes the same change.
--
-- leads.phase: the phase's name. Null for a launch without phases, and on leads stored before this migration.
--
-- The function's role (20251201000100_lead_writer_role.sql) stores and reads the column; like every stored value but
-- withdrawn_at, it may never update it: the phase a person registered in does not change.

alter table public.leads add column if not exists phase text;
comment on column public.leads.phase is 'The launch''s phase the registration was made in (page.config.json "phases"); null for a launch without phases, and on leads stored before 20251230000000.';

grant select (phase), insert (phase) on table public.leads to lead_writer;
