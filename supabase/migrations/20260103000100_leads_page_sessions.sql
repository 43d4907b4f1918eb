-- The leads page's sessions on PostgreSQL (issue 26): with DATABASE_URL the Node server keeps them here instead of
-- DATA_DIR/leads-page.sqlite, so a session made on one server is valid on the others
-- (src/server/leads-page/postgres-sessions.ts; the SQLite file has the same shape, in sessions.ts). A new file:
-- shipped migrations are never edited.
--
-- leads_page_sessions: a session by the SHA-256 of its cookie (never the cookie), when it ends, the filter it keeps
--                      (the search typed may be a name or an address: `npm run leads:erase` blanks it), and the tag
--                      of the LEADS_PASSWORD it was made under (a keyed hash; 'studio-account' for the filter kept
--                      for a studio account's session). A server started with another password deletes the others.
-- leads_page_settings: the random key of those tags (name 'password_key'), made by the first server that starts.
--
-- Nobody but the owner may touch them: row level security on, no policy, every privilege taken back from anon,
-- authenticated and lead_writer, as for the studio's tables.

create table if not exists public.leads_page_sessions (
  token_hash   text        primary key,
  expires_at   timestamptz not null,
  filter       jsonb       not null default '{"text":""}'::jsonb,
  password_tag text        not null default ''
);
create index if not exists leads_page_sessions_expiry on public.leads_page_sessions (expires_at);
comment on column public.leads_page_sessions.filter is 'What the list is narrowed to; its text is the search typed (perhaps a name or an address).';

create table if not exists public.leads_page_settings (
  name  text primary key,
  value text not null
);

alter table public.leads_page_sessions enable row level security;
alter table public.leads_page_settings enable row level security;
revoke all on table public.leads_page_sessions, public.leads_page_settings from anon, authenticated, lead_writer;
