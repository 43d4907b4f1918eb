-- The leads page (src/server/leads-page/) lists registrations newest first and pages by (created_at, id):
-- one index serves both the order and the keyset, so a page costs the same among thousands of leads.
create index if not exists leads_newest on public.leads (created_at, id);
