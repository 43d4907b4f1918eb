-- A fresh document link is sent at most once a window for a lead (src/server/delivery/document-routes.ts): the reply
-- is queued only when none was queued for that lead since then. Checked with NOT EXISTS on the outbox, two requests
-- at once (two servers, or the function twice) could each see none and each queue one. A new file: shipped
-- migrations are never edited.
--
-- leads.documents_reply_at: when the lead's last fresh-link reply was queued. The store now queues one in a statement
-- that first moves this time forward, only where it is older than the window: a second request at the same moment
-- waits for the first one's row lock, then finds the time already moved and queues nothing (PostgreSQL checks the
-- condition again on the row as the first request left it). The SQLite store needs no column: its write takes the
-- database's one write lock for the whole check and queue.
--
-- lead_writer (the function's role) may update this column, as it may update withdrawn_at, and no other.

alter table public.leads add column if not exists documents_reply_at timestamptz;
comment on column public.leads.documents_reply_at is 'When the last fresh document link reply was queued for this lead (one a window).';
grant update (documents_reply_at) on table public.leads to lead_writer;
