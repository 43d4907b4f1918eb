-- The launch's pulse (issue 25): each launch's page views and unique visitors a day, by source, so the leads page's
-- dashboard shows visits and the conversion (registrations / unique visitors). The Node server counts a visit when it
-- serves a launch's page, without cookies: a visitor is a hash of a salt that changes every day (kept in memory only,
-- never stored), the site, the address and the browser's User-Agent, held in memory for that day alone. Only these
-- daily counts are stored: no address, no hash, no User-Agent. The SQLite store (src/server/store/sqlite/sqlite-schema.ts,
-- schema version 9) makes the same table.
--
-- day: the date in the team's time zone (NOTIFY_TIME_ZONE). source: utm_source (lower case), else the network of an ad
-- click id, else the referring site's host, else '' (direct). visitors: visitors first seen that day under this source.

create table if not exists public.visit_counts (
  launch   text    not null,
  day      date    not null,
  source   text    not null default '',
  visits   integer not null default 0,
  visitors integer not null default 0,
  primary key (launch, day, source)
);
create index if not exists visit_counts_day on public.visit_counts (day);

alter table public.visit_counts enable row level security;
revoke all on table public.visit_counts from anon, authenticated, service_role, lead_writer;

comment on table public.visit_counts is 'Page views and unique visitors of each launch a day, by source: counts only, no address or hash.';
