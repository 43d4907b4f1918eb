-- The VIP release on the static-host set-up (issue 45): the send-contact-email function, the only server there,
-- answers the page's "left" counts (…/send-contact-email/left.json?launch=<slug>) and serves the realtors' worksheet
-- page (…/send-contact-email/worksheets?id=…&sig=…). Its role, lead_writer, gets what those two need and no more. A new
-- file: shipped migrations are never edited. The Node server, the studio and the CLI work as the owner, unchanged.
--
-- lots:              reads a lot's id, models and status (20260120000000_release.sql gave launch, models, status);
--                    never its price, frontage, release or the worksheet it went to; changes nothing.
-- worksheets:        inserts a realtor's worksheet (the received columns only: its outcome is 'received', its decision
--                    empty, by the columns' defaults); reads no column of the table. A realtor's own worksheets are
--                    read through public.realtor_worksheets(launch, realtor_lead_id), SECURITY DEFINER: one realtor's
--                    at a time, never a scan of every realtor's clients. No UPDATE, no DELETE.
-- worksheet_numbers: takes the launch's next number (insert the launch's row, or add one to its last).
-- the worksheets' id sequence: nextval, so the worksheet's messages can name it in the same statement.
-- outbox:            a worksheet's confirmations are inserted as the leads' are (20251201000100_lead_writer_role.sql).

grant select (lot) on table public.lots to lead_writer;

grant insert (id, launch, number, realtor_lead_id, realtor_email, client_name, client_email, client_phone, choices,
  deposit_accepted, notes, received_at) on table public.worksheets to lead_writer;
drop policy if exists worksheets_lead_writer_insert on public.worksheets;
create policy worksheets_lead_writer_insert on public.worksheets for insert to lead_writer
  with check (outcome = 'received' and decided_at is null and allocated_lot is null);

grant select (launch, last), insert (launch, last), update (last) on table public.worksheet_numbers to lead_writer;
drop policy if exists worksheet_numbers_lead_writer on public.worksheet_numbers;
create policy worksheet_numbers_lead_writer on public.worksheet_numbers for all to lead_writer
  using (true) with check (true);

-- Supabase's default privileges hand a new sequence to its API roles: the identity's sequence is taken back from them.
do $$
declare
  sequence_name text := pg_get_serial_sequence('public.worksheets', 'id');
begin
  execute format('revoke all on sequence %s from public, anon, authenticated, service_role', sequence_name);
  execute format('grant usage on sequence %s to lead_writer', sequence_name);
end
$$;

-- A realtor's worksheets of a launch, in number order: what their worksheet page lists. It runs as its owner with an
-- empty search_path (every name written in full), as public.published_contracts() does.
create or replace function public.realtor_worksheets(p_launch text, p_realtor_lead_id bigint)
returns setof public.worksheets
language sql
stable
security definer
set search_path = ''
as $$
  select w.* from public.worksheets as w
  where w.launch = p_launch and w.realtor_lead_id = p_realtor_lead_id
  order by w.number
$$;

comment on function public.realtor_worksheets(text, bigint) is 'One realtor''s worksheets of a launch, for the send-contact-email function''s worksheet page.';

revoke all on function public.realtor_worksheets(text, bigint) from public, anon, authenticated, service_role;
grant execute on function public.realtor_worksheets(text, bigint) to lead_writer;
