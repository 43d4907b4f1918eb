-- The leads page (src/server/leads-page/) lists registrations newest first and pages by (created_at, id): one
-- index serves both the order and the keyset, so a page costs the same among thousands of leads. Beside each lead
-- it shows its notification's state, the lead's first outbox row: (lead_id, id) finds it in one probe.
create index if not exists leads_newest on public.leads (created_at, id);
create index if not exists outbox_lead_first on public.outbox (lead_id, id);
