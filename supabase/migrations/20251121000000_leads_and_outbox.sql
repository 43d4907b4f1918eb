-- Registrations (leads) and their pending notifications (outbox) for the send-contact-email function.
-- The SQLite store in src/server/sqlite-store.ts keeps the same tables and columns.
--
-- Nobody but the function reads or writes these tables: the function connects with SUPABASE_DB_URL (the
-- table owner). The anon and authenticated roles (the browser's keys, through the Data API) get no
-- privileges at all, and row level security is on with no policy, so even a later careless GRANT shows
-- them nothing.

create table if not exists public.leads (
  id            bigint generated always as identity primary key,
  submission_id uuid        not null unique,
  created_at    timestamptz not null default now(),
  fields        jsonb       not null,
  consent_text  text        not null,
  page_url      text,
  referrer      text,
  utm           jsonb       not null default '{}'::jsonb,
  user_agent    text
);

comment on table public.leads is 'VIP registrations from the site''s form: every field, when, and the consent shown (CASL).';
comment on column public.leads.fields is 'Every form field as validated by the server (page.config.json form.schema).';
comment on column public.leads.consent_text is 'The consent note the visitor saw when submitting.';

create table if not exists public.outbox (
  id              bigint generated always as identity primary key,
  lead_id         bigint      not null references public.leads (id),
  recipient       text        not null,
  mail            jsonb       not null,
  status          text        not null default 'pending' check (status in ('pending', 'sent')),
  attempts        integer     not null default 0,
  next_attempt_at timestamptz not null default now(),
  locked_until    timestamptz,
  last_error      text,
  created_at      timestamptz not null default now(),
  sent_at         timestamptz
);

comment on table public.outbox is 'Notification e-mails, committed with their lead and delivered (with retries) by the function.';

create index if not exists outbox_due on public.outbox (next_attempt_at) where status = 'pending';
create index if not exists outbox_lead on public.outbox (lead_id);

alter table public.leads enable row level security;
alter table public.outbox enable row level security;

-- Supabase grants every new table in public to anon and authenticated by default privileges: take it back.
revoke all on table public.leads, public.outbox from anon, authenticated;
revoke all on sequence public.leads_id_seq, public.outbox_id_seq from anon, authenticated;
