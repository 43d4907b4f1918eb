-- The realtors' path (issue 24): builders pay co-operation only to the agent who registered the buyer first, so each
-- lead keeps when this person first registered for the launch, and nothing can change it. A new file: shipped
-- migrations are never edited. The SQLite store (src/server/store/sqlite/sqlite-schema.ts, schema version 11) makes the same
-- change.
--
-- leads.first_registered_at: set by the database on insert, whatever the insert says: the earliest first-registered
-- time of the same person (the same address, trimmed, lower case) in the same launch, else the lead's own created_at.
-- Any update that would change it is refused, whoever runs it (the function's role, the leads page, an operator).

alter table public.leads add column if not exists first_registered_at timestamptz;
comment on column public.leads.first_registered_at is 'When this person (same e-mail, same launch) first registered: set on insert, never changed (trigger leads_first_registered).';

update public.leads l set first_registered_at = (
  select min(o.created_at) from public.leads o
  where o.id = l.id or (coalesce(o.launch, '') = coalesce(l.launch, '') and lower(btrim(o.fields->>'email')) = lower(btrim(l.fields->>'email')))
) where first_registered_at is null;

-- Security definer: the function's role inserts leads but reads only the columns it is granted.
create or replace function public.leads_first_registered() returns trigger
language plpgsql security definer set search_path = public, pg_temp as $$
begin
  if tg_op = 'INSERT' then
    new.first_registered_at := coalesce(
      (select min(o.first_registered_at) from public.leads o
        where coalesce(o.launch, '') = coalesce(new.launch, '')
          and lower(btrim(o.fields->>'email')) = lower(btrim(new.fields->>'email'))),
      new.created_at);
  elsif new.first_registered_at is distinct from old.first_registered_at then
    raise exception 'leads.first_registered_at never changes';
  end if;
  return new;
end;
$$;

drop trigger if exists leads_first_registered on public.leads;
create trigger leads_first_registered before insert or update on public.leads
  for each row execute function public.leads_first_registered();

grant select (first_registered_at) on table public.leads to lead_writer;
