-- Issue 12: what paid for the lead, and leads caught by the honeypot kept apart instead of dropped.
-- The SQLite store (src/server/sqlite-store.ts) adds the same columns.

alter table public.leads
  add column if not exists click_ids      jsonb   not null default '{}'::jsonb,
  add column if not exists landing_page   text,
  add column if not exists suspected_spam boolean not null default false;

comment on column public.leads.click_ids is 'Ad click ids of the landing address: gclid, gbraid, wbraid, fbclid, msclkid.';
comment on column public.leads.landing_page is 'The path of the page the visitor landed on (no query string: no personal data).';
comment on column public.leads.suspected_spam is 'The hidden honeypot field was filled: kept for review, never notified.';
