-- The visits of pages on a static host (issue 25): no server of ours serves those pages, so each prerendered page asks
-- the send-contact-email function for a 1×1 image (no script), and the function counts that as the Node servers count
-- a page they serve: page views and first-seen visitors a day, with one salt a day for everyone, so a visitor counts
-- once a day whichever server or function saw them.
--
-- lead_writer (the function's role) still has no privilege on the visit tables: it may only call this function, which
-- runs as its owner (SECURITY DEFINER, empty search_path) and never returns the salt. The function hands it the
-- visitor's identity (launch, address and User-Agent, as bytes) for the moment of the call; only the salted hash is
-- kept, for that day alone, as visit_visitors always was, and only counts in visit_counts. The day is the function's
-- (the team's time zone); one more than a day away from the database's own date is refused, so no caller can delete
-- today's salt by naming a later day.

create or replace function public.count_visit(p_launch text, p_day date, p_identity bytea)
returns void
language plpgsql
security definer
set search_path = ''
as $$
declare
  first_seen integer;
begin
  if p_launch is null or length(p_launch) = 0 or length(p_launch) > 100 or p_identity is null or length(p_identity) > 4000
    or p_day is null or p_day < current_date - 1 or p_day > current_date + 1 then
    return;
  end if;
  delete from public.visit_salts where day < p_day;
  delete from public.visit_visitors where day < p_day;
  -- 32 bytes from two random UUIDs (gen_random_uuid is PostgreSQL's own strong random source; no extension needed).
  insert into public.visit_salts (day, salt)
    values (p_day, pg_catalog.uuid_send(pg_catalog.gen_random_uuid()) || pg_catalog.uuid_send(pg_catalog.gen_random_uuid()))
    on conflict (day) do nothing;
  -- The same hash the Node servers make (site/visit-counter.ts): SHA-256 of the salt then the identity, in base64.
  insert into public.visit_visitors (day, visitor)
    select p_day, pg_catalog.encode(pg_catalog.sha256(salts.salt || p_identity), 'base64')
    from public.visit_salts as salts where salts.day = p_day
    on conflict do nothing;
  get diagnostics first_seen = row_count;
  insert into public.visit_counts (launch, day, source, visits, visitors)
    values (p_launch, p_day, '', 1, first_seen)
    on conflict (launch, day, source)
    do update set visits = public.visit_counts.visits + 1, visitors = public.visit_counts.visitors + excluded.visitors;
end
$$;

comment on function public.count_visit(text, date, bytea) is 'Counts one visit image of a launch''s page (a page on a static host), for the send-contact-email function.';

revoke all on function public.count_visit(text, date, bytea) from public, anon, authenticated, service_role;
grant execute on function public.count_visit(text, date, bytea) to lead_writer;
