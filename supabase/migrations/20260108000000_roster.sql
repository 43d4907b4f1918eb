-- Leads reach a person at once, and a morning summary (issue 25). A new file: shipped migrations are never edited. The
-- SQLite store (src/server/store/sqlite/sqlite-schema.ts, schema version 14) makes the same change.
--
-- roster_turns: how many turns each launch's roster (page.config.json launch.roster) has given. A new buyer's lead takes
--   the next one in the transaction that stores it (INSERT … ON CONFLICT DO UPDATE locks the row), so concurrent
--   registrations, on one server or several, never take the same turn; the lead is assigned to the salesperson at
--   (turns - 1) modulo the roster's length (src/server/store/follow-up.ts: NewAssignment).
-- outbox: two more kinds, 'assignment' (the assignee's mail, one a lead) and 'summary' (the sales manager's daily
--   summary, which belongs to no lead: lead_id null). Each summary is queued with its day's claim in daily_runs
--   (20260104000000_node_servers.sql), in one statement, so it is queued once a day whatever the servers or restarts.
--
-- The function (Deno, as lead_writer) stores leads too, so it assigns them: it may take a roster's turn and insert a
-- new lead's follow-up row and history line, and nothing else there (no reading, changing or deleting follow-ups).

create table if not exists public.roster_turns (
  roster text   primary key,
  turns  bigint not null default 0
);
comment on table public.roster_turns is 'How many turns each launch''s roster of salespeople has given (round robin of new buyers'' leads).';

alter table public.outbox alter column lead_id drop not null;
alter table public.outbox drop constraint if exists outbox_kind_check;
alter table public.outbox add constraint outbox_kind_check
  check (kind in ('notification', 'reply', 'webhook', 'announcement', 'assignment', 'summary'));
comment on column public.outbox.lead_id is 'The lead the message is about; null for a daily summary (kind summary).';

alter table public.roster_turns enable row level security;
revoke all on table public.roster_turns from anon, authenticated, service_role, lead_writer;
grant select, insert, update (turns) on table public.roster_turns to lead_writer;
drop policy if exists roster_turns_lead_writer_read on public.roster_turns;
create policy roster_turns_lead_writer_read on public.roster_turns for select to lead_writer using (true);
drop policy if exists roster_turns_lead_writer_add on public.roster_turns;
create policy roster_turns_lead_writer_add on public.roster_turns for insert to lead_writer with check (true);
drop policy if exists roster_turns_lead_writer_turn on public.roster_turns;
create policy roster_turns_lead_writer_turn on public.roster_turns for update to lead_writer using (true) with check (true);

grant insert on table public.lead_follow_ups, public.lead_history to lead_writer;
drop policy if exists lead_follow_ups_lead_writer_assign on public.lead_follow_ups;
create policy lead_follow_ups_lead_writer_assign on public.lead_follow_ups for insert to lead_writer with check (status is null);
drop policy if exists lead_history_lead_writer_assign on public.lead_history;
create policy lead_history_lead_writer_assign on public.lead_history for insert to lead_writer with check (kind = 'assignee');
