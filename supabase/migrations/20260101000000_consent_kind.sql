-- Consent as it was given, and announcements to a launch's list (issue 24, CASL). A new file: shipped migrations are
-- never edited. The SQLite store (src/server/store/sqlite/sqlite-schema.ts, schema version 12) makes the same change.
--
-- leads.consent_kind: 'express' when the form's unticked "send me updates" box (form.expressConsentField) was ticked,
-- else 'implied' by the inquiry. leads.implied_until: when implied consent ends, the inquiry + 6 months (CASL),
-- computed once by the function at registration; the leads stored before get their created_at + 6 months (Postgres
-- keeps the day within the month: 31 August + 6 months is the last day of February).
-- announcements: a short message the team sent to a launch's list from the leads page; each recipient's copy is an
-- outbox message of kind 'announcement' pointing at it (one per lead and announcement).

alter table public.leads add column if not exists consent_kind text not null default 'implied';
alter table public.leads drop constraint if exists leads_consent_kind_check;
alter table public.leads add constraint leads_consent_kind_check check (consent_kind in ('express', 'implied'));
alter table public.leads add column if not exists implied_until timestamptz;
update public.leads set implied_until = (created_at at time zone 'UTC' + interval '6 months') at time zone 'UTC' where implied_until is null;
comment on column public.leads.consent_kind is 'express (the form''s updates box ticked) or implied (the inquiry; lasts six months under CASL).';
comment on column public.leads.implied_until is 'When consent implied by the inquiry ends: created_at + 6 months, computed at registration.';

create table if not exists public.announcements (
  id         bigint generated always as identity primary key,
  key        uuid not null unique,
  launch     text not null,
  subject    text not null,
  body       text not null,
  author     text not null,
  created_at timestamptz not null
);
create index if not exists announcements_launch on public.announcements (launch, created_at);
comment on table public.announcements is 'Messages the team sent to a launch''s list (leads page); each copy is an outbox message of kind announcement.';

alter table public.outbox add column if not exists announcement_id bigint references public.announcements(id);
alter table public.outbox drop constraint if exists outbox_kind_check;
alter table public.outbox add constraint outbox_kind_check check (kind in ('notification', 'reply', 'webhook', 'announcement'));
drop index if exists public.outbox_lead_kind;
create unique index outbox_lead_kind on public.outbox (lead_id, kind) where recipient <> 'webhook:lead.updated' and kind <> 'announcement';
create unique index if not exists outbox_announcement on public.outbox (announcement_id, lead_id) where announcement_id is not null;

-- Only the server's own connection writes announcements: RLS on without a policy, and Supabase's default grants taken back.
alter table public.announcements enable row level security;
revoke all on table public.announcements from anon, authenticated, service_role, lead_writer;

-- The function's role (20251201000100_lead_writer_role.sql) stores and reads the two columns, and never changes them.
grant select (consent_kind, implied_until), insert (consent_kind, implied_until) on table public.leads to lead_writer;
