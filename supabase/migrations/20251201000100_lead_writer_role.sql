-- A role for the send-contact-email function with only the privileges its work needs (least privilege). Until
-- now the function connected as the tables' owner (postgres), which may also delete, rewrite or drop them.
--
-- lead_writer may:  read and insert leads, outbox rows and suppressions;
--                   update an outbox row's delivery state (status, attempts, next_attempt_at, locked_until,
--                   last_error, sent_at) and a lead's withdrawn_at;
-- and nothing else: no DELETE or TRUNCATE, no other column, no DDL. It owns nothing. Erasure and retention
-- (npm run leads:erase, VACUUM FULL) run as the owner, from an operator's machine.
--
-- It is created NOLOGIN: nobody can connect as it until you give it a password, e.g. in the SQL editor
--   alter role lead_writer with login password '<a long random password>';
-- then point the function at it (docs/deploy.md, "Least privilege"):
--   supabase secrets set DATABASE_URL='postgresql://lead_writer:<password>@db.<project-ref>.supabase.co:5432/postgres'

do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'lead_writer') then
    create role lead_writer nologin noinherit;
  end if;
end
$$;

comment on role lead_writer is 'The send-contact-email function: inserts leads and delivers their notifications; cannot delete or alter them.';

grant usage on schema public to lead_writer;

grant select, insert on table public.leads, public.outbox, public.suppressions to lead_writer;
grant update (status, attempts, next_attempt_at, locked_until, last_error, sent_at) on table public.outbox to lead_writer;
grant update (withdrawn_at) on table public.leads to lead_writer;

-- Row level security is on for these tables (with no policy, only the owner sees rows): let lead_writer see and
-- write every row. What it may do to them is limited by the grants above, not by these policies.
create policy lead_writer_leads on public.leads for all to lead_writer using (true) with check (true);
create policy lead_writer_outbox on public.outbox for all to lead_writer using (true) with check (true);
create policy lead_writer_suppressions on public.suppressions for all to lead_writer using (true) with check (true);
