-- Issue 46: how far behind the mail is. /healthz, the leads page and the owners' alert say how many messages wait to
-- be sent and how long the oldest has waited (src/server/store/outbox/postgres-outbox-counts.ts countBacklog): the
-- pending messages by when they were queued, so both come from this index alone however large the outbox grows.
-- SQLite keeps the same index (src/server/store/sqlite/sqlite-rows.ts outboxBacklogIndex). A new file: shipped
-- migrations are never edited.
create index if not exists outbox_pending_since on public.outbox (created_at) where status = 'pending';
