-- Follow-up and people (issue 25): a status, an assignee and dated notes on each lead, with their history; each
-- phone number also in E.164, so that one person's registrations are found together. A new file: shipped
-- migrations are never edited. The SQLite store (src/server/store/sqlite-schema.ts, schema version 8) makes the same
-- change.
--
-- leads.phone_e164: the phone number as typed, read as E.164 (libphonenumber-js, Canada as the default region): null
--   until it is read, '' when the lead has no phone that reads as a number. Read by the leads page (Node), for the
--   leads stored before this migration on its first request after it, and for each new lead on the next one:
--   the function (Deno) stores what was typed, never a second reading of it.
-- lead_follow_ups: a lead's current status (null: the launch's first status, "New") and assignee ('' unassigned).
-- lead_history: every change of status or assignee, and every note, with its time and author.
-- outbox_lead_kind: each lead still has at most one notification, reply and lead.created webhook call, but as many
--   lead.updated calls as it has changes (recipient 'webhook:lead.updated').
--
-- Only the owner reads or writes the new tables (the leads page connects as it): row level security is on with no
-- policy, and the grants Supabase's default privileges hand to its API roles are taken back, so anon, authenticated
-- and the function's lead_writer see nothing.

alter table public.leads add column if not exists phone_e164 text;
comment on column public.leads.phone_e164 is 'The phone number in E.164 (+16475550111); null until read by the leads page, empty when there is none.';
create index if not exists leads_phone_unread on public.leads (id) where phone_e164 is null;
create index if not exists leads_phone_e164 on public.leads (phone_e164) where phone_e164 <> '';
create index if not exists leads_email_key on public.leads (lower(btrim(fields->>'email')));

create table if not exists public.lead_follow_ups (
  lead_id    bigint      primary key references public.leads (id) on delete cascade,
  status     text,
  assignee   text        not null default '',
  updated_at timestamptz not null
);
create index if not exists lead_follow_ups_status on public.lead_follow_ups (status);
create index if not exists lead_follow_ups_assignee on public.lead_follow_ups (assignee);

create table if not exists public.lead_history (
  id         bigint      generated always as identity primary key,
  lead_id    bigint      not null references public.leads (id) on delete cascade,
  created_at timestamptz not null,
  author     text        not null,
  kind       text        not null check (kind in ('status', 'assignee', 'note')),
  value      text        not null
);
create index if not exists lead_history_lead on public.lead_history (lead_id, id);

alter table public.lead_follow_ups enable row level security;
alter table public.lead_history enable row level security;
revoke all on table public.lead_follow_ups, public.lead_history from anon, authenticated, service_role, lead_writer;
revoke all on sequence public.lead_history_id_seq from anon, authenticated, service_role, lead_writer;

comment on table public.lead_follow_ups is 'Where the follow-up of each lead stands: status (null: the first of the launch''s list) and assignee.';
comment on table public.lead_history is 'Every change of a lead''s status or assignee, and every note, with when and who.';

drop index if exists public.outbox_lead_kind;
create unique index outbox_lead_kind on public.outbox (lead_id, kind) where recipient <> 'webhook:lead.updated';
