// The dashboard's part of the store contract (store.ts): the leads page's counts over days, and the visit counts the
// launch pages add. Implemented side by side here: sqlite-pulse.ts and postgres-pulse.ts (the counts),
// sqlite-visits.ts and postgres-visits.ts (the visits).
import type { LeadSearch } from '../leads/lead-search.ts'
import type { StoredLead } from '../leads/leads.ts'

/** One day of the dashboard, in the team's time zone: its date (YYYY-MM-DD) and its bounds as ISO 8601 UTC. */
export type PulseDay = { day: string; start: string; end: string }

/**
 * What the dashboard counts: the leads of a scope (LeadSearch's launch and launches) over consecutive days, oldest
 * first.
 */
export type PulseQuery = Pick<LeadSearch, 'launch' | 'launches'> & { days: readonly PulseDay[] }

/**
 * The dashboard's counts over the query's days (suspected spam left out). A source is the lead's utm_source (lower
 * case), else the network of its ad click id, else its referrer's host (without www., not the page's own), else ''
 * (direct); a visit's source is read the same way from the page's address and Referer. Status null: never given one.
 */
export type LeadPulse = {
  days: Array<{ day: string; registrations: number; fromEmail: number; visits: number; visitors: number }>
  sources: Array<{ source: string; registrations: number; visitors: number }>
  realtors: number
  buyers: number
  statuses: Array<{ status: string | null; registrations: number }>
  /** Registrations from an e-mail's links (utm_medium email), by utm_campaign ('' none). */
  emailCampaigns: Array<{ campaign: string; registrations: number; first: string; last: string }>
}

/** A launch's page views and new unique visitors on one day (in the team's time zone), from one source. */
export type VisitCount = { launch: string; day: string; source: string; visits: number; visitors: number }

/** The networks an ad click id names, as a source. */
export const clickIdNetworks: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['Google Ads', ['gclid', 'gbraid', 'wbraid']],
  ['Meta ads', ['fbclid']],
  ['Microsoft Ads', ['msclkid']],
]

/** A registration's source as the dashboard counts it in SQL (LeadPulse), read in code: '' is direct. */
export function sourceOfLead(lead: Pick<StoredLead, 'utm' | 'clickIds' | 'referrer' | 'pageUrl'>): string {
  const utm = (lead.utm.utm_source ?? '').trim().toLowerCase()
  if (utm) return utm
  for (const [network, ids] of clickIdNetworks) if (ids.some((id) => lead.clickIds[id] !== undefined)) return network
  const hostOf = (url: string | null) =>
    url && url.includes('://')
      ? url
          .slice(url.indexOf('://') + 3)
          .split('/')[0]!
          .toLowerCase()
      : ''
  const from = hostOf(lead.referrer)
  if (from === '' || from === hostOf(lead.pageUrl)) return ''
  return from.startsWith('www.') ? from.slice(4) : from
}

/** The utm_medium values (lower case) of a link in an e-mail: the blast's registrations. */
export const emailMedia = ['email', 'e-mail', 'newsletter'] as const

/** The dashboard's part of the store: counts made in SQL, never by reading every lead. */
export interface PulseStore {
  /** The counts of the dashboard (LeadPulse) for a scope over its days. */
  countPulse(query: PulseQuery): Promise<LeadPulse>
  /** Adds visit counts to the stored ones (same launch, day and source: summed). */
  addVisits(counts: readonly VisitCount[]): Promise<void>
}

/** The dashboard's counts from the rows of its queries, as both stores read them (numbers may come as text). */
export function pulseOf(
  q: PulseQuery,
  perDay: Array<{ i: number | string; registrations: number | string; from_email: number | string }>,
  bySource: Array<{ source: string; registrations: number | string }>,
  visitsByDay: ReadonlyMap<string, { visits: number | string; visitors: number | string }>,
  visitorsBySource: Array<{ source: string; visitors: number | string }>,
  kinds: { realtors: number | string | null; buyers: number | string | null },
  statuses: Array<{ status: string | null; registrations: number | string }>,
  campaigns: Array<{ campaign: string; registrations: number | string; first: string | Date; last: string | Date }>,
): LeadPulse {
  const byIndex = new Map(perDay.map((row) => [Number(row.i), row]))
  const sources = new Map<string, { source: string; registrations: number; visitors: number }>()
  for (const row of bySource)
    sources.set(row.source, { source: row.source, registrations: Number(row.registrations), visitors: 0 })
  for (const row of visitorsBySource) {
    const known = sources.get(row.source) ?? { source: row.source, registrations: 0, visitors: 0 }
    known.visitors += Number(row.visitors)
    sources.set(row.source, known)
  }
  const iso = (value: string | Date) => (value instanceof Date ? value : new Date(value)).toISOString()
  return {
    days: q.days.map((d, i) => ({
      day: d.day,
      registrations: Number(byIndex.get(i)?.registrations ?? 0),
      fromEmail: Number(byIndex.get(i)?.from_email ?? 0),
      visits: Number(visitsByDay.get(d.day)?.visits ?? 0),
      visitors: Number(visitsByDay.get(d.day)?.visitors ?? 0),
    })),
    sources: [...sources.values()].sort(
      (a, b) => b.registrations - a.registrations || b.visitors - a.visitors || a.source.localeCompare(b.source),
    ),
    realtors: Number(kinds.realtors ?? 0),
    buyers: Number(kinds.buyers ?? 0),
    statuses: statuses.map((row) => ({ status: row.status, registrations: Number(row.registrations) })),
    emailCampaigns: campaigns.map((row) => ({
      campaign: row.campaign,
      registrations: Number(row.registrations),
      first: iso(row.first),
      last: iso(row.last),
    })),
  }
}
