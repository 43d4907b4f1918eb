-- The studio's second security review (issue 42): a TOTP code is accepted once (item 5), and preview links are kept
-- on the server (item 8): listed per launch, revocable by owners, ended with their maker's account, each bound to the
-- text it was made from (src/studio/server/store/postgres-preview-links.ts). SQLite gets the same shape
-- (src/studio/server/store/sqlite-schema.ts, version 2). A new file: shipped migrations are never edited.
--
-- Nobody but the owner may touch them: row level security on, no policy, every privilege taken back from anon,
-- authenticated and lead_writer, as for the studio's other tables.

alter table public.studio_accounts add column if not exists totp_step bigint;
comment on column public.studio_accounts.totp_step is 'The last TOTP time-step (30 s) signed in with: a code of that step or an earlier one is refused.';

create table if not exists public.studio_preview_links (
  id         bigint generated always as identity primary key,
  token_hash text        not null unique,
  launch     text        not null,
  phase      text,
  text       text        not null,
  account_id bigint      not null references public.studio_accounts (id) on delete cascade,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  revoked_at timestamptz
);
create index if not exists studio_preview_links_launch on public.studio_preview_links (launch);
comment on table public.studio_preview_links is 'Read-only preview links of a draft, by the SHA-256 of their token: the text they show is the one they were made from.';

alter table public.studio_preview_links enable row level security;
revoke all on table public.studio_preview_links from anon, authenticated, lead_writer;
