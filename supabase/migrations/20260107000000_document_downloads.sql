-- Documents that tell (issue 24): each opening of a personal document link (which lead, which document, when), so the
-- leads page, the export and the CRM (document.opened) know who is interested. A new file: shipped migrations are never
-- edited. The SQLite store (src/server/store/sqlite/sqlite-schema.ts, schema version 13) makes the same change.
--
-- document_downloads: one row per opening; document is the document's id (its file's name, schema/documents.ts) and
--   title its title then. Erased with its lead (on delete cascade). No address, no IP, nothing typed by the visitor.
-- outbox_lead_kind: each lead still has at most one notification, reply and lead.created webhook call, but as many
--   document.opened calls (recipient 'webhook:document.opened') and fresh-link replies (recipient 'reply:documents')
--   as it opens documents and asks for fresh links.

create table if not exists public.document_downloads (
  id        bigint      generated always as identity primary key,
  lead_id   bigint      not null references public.leads (id) on delete cascade,
  document  text        not null,
  title     text        not null,
  opened_at timestamptz not null
);
create index if not exists document_downloads_lead on public.document_downloads (lead_id, document);
comment on table public.document_downloads is 'Each opening of a document link sent in a reply: which lead, which document, when.';

drop index if exists public.outbox_lead_kind;
create unique index outbox_lead_kind on public.outbox (lead_id, kind)
  where recipient not in ('webhook:lead.updated', 'webhook:document.opened', 'reply:documents') and kind <> 'announcement';
create index if not exists outbox_documents_reply on public.outbox (lead_id, created_at) where recipient = 'reply:documents';

-- Row level security as on the leads: on, with no policy for the API roles (anon, authenticated, service_role see and
-- write nothing, even after a careless GRANT), and Supabase's default grants taken back. The function's role
-- (20251201000100_lead_writer_role.sql) only records openings: insert, through a policy that lets it add rows and
-- read none. The leads page and the export read them as the owner, the role the Node server and the CLI connect as
-- (signed in on the leads page, or holding DATABASE_URL).
alter table public.document_downloads enable row level security;
revoke all on table public.document_downloads from anon, authenticated, service_role, lead_writer;
grant insert (lead_id, document, title, opened_at) on table public.document_downloads to lead_writer;
create policy lead_writer_document_downloads on public.document_downloads for insert to lead_writer with check (true);
