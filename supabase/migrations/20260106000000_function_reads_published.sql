-- The send-contact-email function serves what the studio published (issue 26): a field added in the studio and
-- published is accepted by the function with no redeploy. The function reads each launch's newest contract (what it
-- needs of a launch: form schema, messages, consent, origins, notification address, reply; schema/function-launch.ts)
-- through this function, every few seconds (PUBLISHED_REFRESH_SECONDS); supabase/functions/_shared/launches.json is
-- only the first version, for a launch the database has none of.
--
-- lead_writer (the function's role) still has no privilege on published_builds or its files: the config text and the
-- built pages stay the owner's. It may only call this function, which runs as its owner (SECURITY DEFINER) with an
-- empty search_path (every name written in full, so nobody can put a table of their own in its way) and returns the
-- manifest's contract alone.

create or replace function public.published_contracts()
returns table (launch text, number integer, contract jsonb)
language sql
stable
security definer
set search_path = ''
as $$
  select distinct on (build.launch) build.launch, build.number, build.manifest -> 'contract'
  from public.published_builds as build
  order by build.launch, build.number desc
$$;

comment on function public.published_contracts() is 'Each launch''s newest published contract (the manifest''s contract), for the send-contact-email function.';

-- Functions are executable by PUBLIC by default, and Supabase's default privileges hand new ones to its API roles.
revoke all on function public.published_contracts() from public, anon, authenticated, service_role;
grant execute on function public.published_contracts() to lead_writer;
