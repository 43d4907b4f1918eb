-- Issue 11: an outbox that tells, a reply to each registrant, a CRM webhook. A new file: shipped migrations are
-- never edited. The SQLite store (src/server/sqlite-store.ts, upgradeForMessages) makes the same changes.
--
-- outbox.kind: what a message is for. Each lead has at most one of each kind (the unique index), so a message is
-- queued exactly once however often a submission is retried.
-- outbox.status: 'failed' once a message was refused for good (SMTP 5xx, HTTP 4xx but 408/429) or ran out of
-- attempts (MAIL_MAX_ATTEMPTS), with its last error (no personal data); `npm run outbox:retry` puts it back.
-- 'cancelled' when the registrant withdrew before it went.
-- leads.withdrawn_at: when the registrant used the unsubscribe link (CASL). After it, no reply or webhook call is
-- sent for that address. `if not exists`: issue 13's migration adds the same column.

alter table public.outbox add column if not exists kind text not null default 'notification';
alter table public.outbox drop constraint if exists outbox_kind_check;
alter table public.outbox add constraint outbox_kind_check check (kind in ('notification', 'reply', 'webhook'));
alter table public.outbox drop constraint if exists outbox_status_check;
alter table public.outbox add constraint outbox_status_check check (status in ('pending', 'sent', 'failed', 'cancelled'));
alter table public.outbox add column if not exists failed_at timestamptz;
create unique index if not exists outbox_lead_kind on public.outbox (lead_id, kind);

comment on column public.outbox.kind is 'notification (the sales team), reply (the registrant), webhook (the CRM).';
comment on column public.outbox.last_error is 'Why the last attempt failed: addresses and numbers removed.';

alter table public.leads add column if not exists withdrawn_at timestamptz;
comment on column public.leads.withdrawn_at is 'When the person withdrew consent to be contacted (CASL); null while it stands.';
create index if not exists leads_withdrawn_email on public.leads (lower(btrim(fields->>'email'))) where withdrawn_at is not null;

-- The function's least-privilege role (20251201000100_lead_writer_role.sql) records a final failure's time too.
grant update (failed_at) on table public.outbox to lead_writer;
