import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { LeadStore, NewLead, PulseDay } from '../../src/server/store/store.ts'
import { leadStoreBackends, runSql } from './support/backends.ts'
import { defaultLaunch, mailFor, newLead } from './support/fixtures.ts'

// The dashboard's counts (PulseStore) on both stores: per day in the team's time zone, by source, realtors and
// buyers, by status, the e-mail campaigns, and the visits, for one launch, a list of launches or all of them.

// Three days in Toronto (UTC-5 in early March): each starts at 05:00 UTC.
const days: PulseDay[] = [
  { day: '2026-03-01', start: '2026-03-01T05:00:00.000Z', end: '2026-03-02T05:00:00.000Z' },
  { day: '2026-03-02', start: '2026-03-02T05:00:00.000Z', end: '2026-03-03T05:00:00.000Z' },
  { day: '2026-03-03', start: '2026-03-03T05:00:00.000Z', end: '2026-03-04T05:00:00.000Z' },
]
const other = 'maple-ridge'

const person = (name: string, isRealtor: 'yes' | 'no') => ({
  name,
  email: `${name.toLowerCase()}@example.com`,
  phone: '416-555-0100',
  isRealtor,
})
const leads: Array<{ key: string; lead: NewLead }> = [
  {
    key: 'google',
    lead: newLead({
      createdAt: '2026-03-01T15:00:00.000Z',
      fields: person('Ada', 'no'),
      utm: { utm_source: 'Google ' },
    }),
  },
  // 23:30 in Toronto on March 1st: March 2nd in UTC, March 1st for the team.
  {
    key: 'late',
    lead: newLead({
      createdAt: '2026-03-02T04:30:00.000Z',
      fields: person('Bea', 'no'),
      utm: {},
      referrer: 'https://www.Facebook.com/',
    }),
  },
  {
    key: 'ads',
    lead: newLead({
      createdAt: '2026-03-02T14:00:00.000Z',
      fields: person('Cy', 'yes'),
      utm: {},
      clickIds: { gclid: 'Cj0-test' },
    }),
  },
  {
    key: 'blast',
    lead: newLead({
      createdAt: '2026-03-02T16:00:00.000Z',
      fields: person('Di', 'no'),
      utm: { utm_source: 'newsletter', utm_medium: 'Email', utm_campaign: 'spring' },
    }),
  },
  // A referrer that is the page's own site is direct.
  {
    key: 'own',
    lead: newLead({
      createdAt: '2026-03-03T14:00:00.000Z',
      fields: person('Ed', 'yes'),
      utm: {},
      referrer: 'https://bramblewood.example.com/privacy',
    }),
  },
  {
    key: 'spam',
    lead: newLead({ createdAt: '2026-03-03T15:00:00.000Z', fields: person('Fay', 'no'), suspectedSpam: true }),
  },
  { key: 'before', lead: newLead({ createdAt: '2026-03-01T04:59:59.999Z', fields: person('Gus', 'no') }) },
  { key: 'after', lead: newLead({ createdAt: '2026-03-04T05:00:00.000Z', fields: person('Hal', 'no') }) },
  {
    key: 'other',
    lead: newLead({
      launch: other,
      createdAt: '2026-03-02T18:00:00.000Z',
      fields: person('Ida', 'no'),
      utm: { utm_medium: 'email', utm_campaign: 'spring' },
    }),
  },
  // Stored before launches were kept (no launch): the default launch's.
  {
    key: 'old',
    lead: newLead({ createdAt: '2026-03-03T20:00:00.000Z', fields: person('Jo', 'no'), utm: { utm_source: 'google' } }),
  },
]

describe.each(leadStoreBackends())('the dashboard counts (PulseStore)', (backend) => {
  let store: LeadStore
  const ids = new Map<string, number>()

  beforeAll(() => backend.setup(), 60_000)
  afterAll(() => backend.teardown())
  beforeEach(async () => {
    store = await backend.fresh()
    for (const { key, lead } of leads)
      ids.set(key, (await store.saveLead(lead, lead.suspectedSpam ? null : mailFor(lead))).lead.id)
    await runSql(backend, 'UPDATE leads SET launch = NULL WHERE id = ?', [ids.get('old')!])
    await store.recordFollowUp({
      leadId: ids.get('own')!,
      kind: 'status',
      value: 'Contacted',
      author: 'sam@example.com',
      at: '2026-03-03T16:00:00.000Z',
    })
    await store.addVisits([
      { launch: defaultLaunch, day: '2026-03-01', source: 'google', visits: 5, visitors: 3 },
      { launch: other, day: '2026-03-02', source: '', visits: 4, visitors: 2 },
      { launch: defaultLaunch, day: '2026-02-28', source: '', visits: 9, visitors: 9 },
    ])
    // Counts of the same launch, day and source add up.
    await store.addVisits([{ launch: defaultLaunch, day: '2026-03-01', source: 'google', visits: 2, visitors: 1 }])
    return () => store.close()
  })

  describe(backend.name, () => {
    it("counts one launch's registrations per day in the team's time zone, by source, kind and status, and its visits", async () => {
      const pulse = await store.countPulse({ launch: defaultLaunch, days })
      expect(pulse.days).toEqual([
        { day: '2026-03-01', registrations: 2, fromEmail: 0, visits: 7, visitors: 4 },
        { day: '2026-03-02', registrations: 2, fromEmail: 1, visits: 0, visitors: 0 },
        { day: '2026-03-03', registrations: 2, fromEmail: 0, visits: 0, visitors: 0 },
      ])
      expect(pulse.sources).toEqual([
        { source: 'google', registrations: 2, visitors: 4 },
        { source: '', registrations: 1, visitors: 0 },
        { source: 'facebook.com', registrations: 1, visitors: 0 },
        { source: 'Google Ads', registrations: 1, visitors: 0 },
        { source: 'newsletter', registrations: 1, visitors: 0 },
      ])
      expect({ realtors: pulse.realtors, buyers: pulse.buyers }).toEqual({ realtors: 2, buyers: 4 })
      expect([...pulse.statuses].sort((a, b) => String(a.status).localeCompare(String(b.status)))).toEqual([
        { status: 'Contacted', registrations: 1 },
        { status: null, registrations: 5 },
      ])
      expect(pulse.emailCampaigns).toEqual([
        { campaign: 'spring', registrations: 1, first: '2026-03-02T16:00:00.000Z', last: '2026-03-02T16:00:00.000Z' },
      ])
    })

    it('counts every launch, or only a list of launches', async () => {
      const all = await store.countPulse({ days })
      expect(all.days.map((d) => [d.registrations, d.fromEmail, d.visitors])).toEqual([
        [2, 0, 4],
        [3, 2, 2],
        [2, 0, 0],
      ])
      expect(all.sources.find((s) => s.source === '')).toEqual({ source: '', registrations: 2, visitors: 2 })
      expect(all.emailCampaigns).toEqual([
        { campaign: 'spring', registrations: 2, first: '2026-03-02T16:00:00.000Z', last: '2026-03-02T18:00:00.000Z' },
      ])
      const limited = await store.countPulse({ launches: [other], days })
      expect(limited.days.map((d) => [d.registrations, d.visits])).toEqual([
        [0, 0],
        [1, 4],
        [0, 0],
      ])
      expect(limited.sources).toEqual([{ source: '', registrations: 1, visitors: 2 }])
      expect({ realtors: limited.realtors, buyers: limited.buyers }).toEqual({ realtors: 0, buyers: 1 })
      const none = await store.countPulse({ launches: [], days })
      expect(none.days.every((d) => d.registrations === 0 && d.visits === 0)).toBe(true)
      expect(none.sources).toEqual([])
    })
  })
})
