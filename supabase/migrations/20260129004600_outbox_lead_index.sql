-- Issue 46: one index fewer to write for each message a registration queues. outbox_lead (lead_id) is the first
-- column of outbox_lead_first (lead_id, id), which answers every lookup by lead it did (a lead's messages, the
-- foreign key's check when a lead is erased), so each new message wrote two entries for the same lookup. SQLite never
-- had outbox_lead_first and keeps its outbox_lead. A new file: shipped migrations are never edited.
drop index if exists public.outbox_lead;
