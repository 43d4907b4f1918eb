-- The VIP release (issue 45): a launch's inventory of lots (or suites), the realtors' worksheets and their allocation.
-- A new file: shipped migrations are never edited. The SQLite store makes the same tables
-- (src/server/store/sqlite/sqlite-release-schema.ts); the contract is src/server/store/release.ts.
--
-- lots: one row a lot of a launch, filled by `npm run inventory:import`; price in whole dollars; status available,
--   held, allocated or sold. An allocation is one statement that changes the lot only while it is still available
--   (UPDATE … WHERE status = 'available': a second allocation of the same lot waits for the first's row lock, then
--   finds it allocated and changes nothing), so a lot is allocated once whatever the servers.
-- worksheets: what a realtor sent for a client: up to three choices in order (JSON), numbered 1, 2, … a launch in
--   received order (worksheet_numbers gives the next one under a row lock); received_at, number and launch never
--   change (a trigger refuses it). Erased with the realtor's lead (on delete cascade) or by the client's address
--   (`npm run leads:erase`).
-- outbox_lead_kind: a worksheet's e-mails and webhook calls ride on the realtor's lead with the recipient
--   'worksheet:<id>:<event>', as many as there are worksheets.

create table if not exists public.lots (
  id           bigint      generated always as identity primary key,
  launch       text        not null,
  lot          text        not null,
  release      text,
  models       jsonb       not null default '[]',
  frontage     text,
  price        bigint      not null check (price >= 0),
  status       text        not null default 'available' check (status in ('available', 'held', 'allocated', 'sold')),
  worksheet_id bigint,
  updated_at   timestamptz not null,
  unique (launch, lot)
);
comment on table public.lots is 'A launch''s inventory: each lot or suite, its models, price shown to realtors and status.';

create table if not exists public.worksheet_numbers (
  launch text   primary key,
  last   bigint not null default 0
);

create table if not exists public.worksheets (
  id               bigint      generated always as identity primary key,
  launch           text        not null,
  number           bigint      not null,
  realtor_lead_id  bigint      not null references public.leads (id) on delete cascade,
  realtor_email    text        not null,
  client_name      text        not null,
  client_email     text        not null,
  client_phone     text        not null,
  choices          jsonb       not null,
  deposit_accepted boolean     not null,
  notes            text        not null default '',
  received_at      timestamptz not null,
  outcome          text        not null default 'received' check (outcome in ('received', 'allocated', 'waitlisted', 'declined')),
  allocated_lot    text,
  allocated_model  text,
  reason           text,
  decided_at       timestamptz,
  decided_by       text,
  unique (launch, number)
);
create index if not exists worksheets_realtor on public.worksheets (realtor_lead_id);
create index if not exists worksheets_client on public.worksheets (lower(btrim(client_email)));
comment on table public.worksheets is 'Realtors'' worksheets: a client''s choices of lots, in received order, and their outcome.';

create or replace function public.worksheets_received_kept() returns trigger language plpgsql as $$
begin
  if new.received_at is distinct from old.received_at or new.number is distinct from old.number
     or new.launch is distinct from old.launch then
    raise exception 'a worksheet''s number and received time never change';
  end if;
  return new;
end $$;
drop trigger if exists worksheets_received_kept on public.worksheets;
create trigger worksheets_received_kept before update on public.worksheets
  for each row execute function public.worksheets_received_kept();

drop index if exists public.outbox_lead_kind;
create unique index outbox_lead_kind on public.outbox (lead_id, kind)
  where recipient not in ('webhook:lead.updated', 'webhook:document.opened', 'reply:documents') and kind <> 'announcement'
    and recipient not like 'worksheet:%';

-- Row level security as on the leads: on, with no policy for the API roles, Supabase's default grants taken back. The
-- function's role (lead_writer) reads the lots' statuses only, to answer the page's "left" counts on the static host;
-- the Node server, the studio and the CLI work as the owner.
alter table public.lots enable row level security;
alter table public.worksheets enable row level security;
alter table public.worksheet_numbers enable row level security;
revoke all on table public.lots, public.worksheets, public.worksheet_numbers from anon, authenticated, service_role, lead_writer;
revoke all on function public.worksheets_received_kept() from public, anon, authenticated, service_role;
grant select (launch, models, status) on table public.lots to lead_writer;
drop policy if exists lots_lead_writer_read on public.lots;
create policy lots_lead_writer_read on public.lots for select to lead_writer using (true);
