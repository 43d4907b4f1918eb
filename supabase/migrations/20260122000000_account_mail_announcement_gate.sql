-- Two findings of the second security review (issue 42). A new file: shipped migrations are never edited. The SQLite
-- store (src/server/store/sqlite/sqlite-schema.ts, schema version 15) makes the same outbox change.
--
-- outbox: one more kind, 'account': a studio account's invitation or reset link, a message of no lead (lead_id null).
--   The studio queues it and answers at once; the outbox worker sends and retries it like every other message
--   (src/server/store/account-mail/postgres-account-mail.ts).
-- announcement_gates: each launch's last announcement, the row two senders of one launch meet on. The daily limit (one
--   announcement a launch in 24 hours unless an owner confirms a second) is checked in the statement that saves the
--   announcement: its INSERT … ON CONFLICT DO UPDATE … WHERE locks the launch's row and reads its newest version, so two
--   editors sending at the same second, on one server or two, never both pass
--   (src/server/store/announcements/postgres-announcements.ts). Filled from the announcements already sent.
--
-- Nobody but the owner may touch the gates: row level security on, no policy, every privilege taken back.

alter table public.outbox drop constraint if exists outbox_kind_check;
alter table public.outbox add constraint outbox_kind_check
  check (kind in ('notification', 'reply', 'webhook', 'announcement', 'assignment', 'summary', 'account'));
comment on column public.outbox.lead_id is 'The lead the message is about; null for a message of no lead (kinds summary and account, an announcement''s test copy).';

create table if not exists public.announcement_gates (
  launch  text        primary key,
  last_at timestamptz not null
);
comment on table public.announcement_gates is 'Each launch''s last announcement: where the one-a-day limit is checked and taken in one statement.';

insert into public.announcement_gates (launch, last_at)
select launch, max(created_at) from public.announcements group by launch
on conflict (launch) do update set last_at = greatest(public.announcement_gates.last_at, excluded.last_at);

alter table public.announcement_gates enable row level security;
revoke all on table public.announcement_gates from anon, authenticated, service_role, lead_writer;
