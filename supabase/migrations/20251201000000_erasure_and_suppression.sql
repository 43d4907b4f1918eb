-- Erasure and withdrawal (issue 13). A new file: shipped migrations are never edited.
--
-- withdrawn_at: when the person withdrew consent to be contacted (CASL). Set by the withdrawal feature; kept here
-- so that erasing a lead that had withdrawn can leave a suppression behind.
--
-- suppressions: keyed hashes (HMAC-SHA256 with a secret the database does not hold, src/server/suppression.ts) of
-- addresses that withdrew consent. Not the addresses: after an erasure nothing readable about the person is left,
-- yet a later registration from the same address can still be recognised as withdrawn.

alter table public.leads add column if not exists withdrawn_at timestamptz;
comment on column public.leads.withdrawn_at is 'When the person withdrew consent to be contacted (CASL); null while it stands.';

create table if not exists public.suppressions (
  address_key text        primary key,
  created_at  timestamptz not null default now()
);
comment on table public.suppressions is 'HMAC-SHA256 keys of e-mail addresses that withdrew consent; never the addresses.';

alter table public.suppressions enable row level security;
revoke all on table public.suppressions from anon, authenticated;
