import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { createApp } from '../../src/server/app.ts'
import { addMonthsUtc, impliedConsentEnd, mayMarket } from '../../src/server/store/consent.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { LeadStore } from '../../src/server/store/store.ts'
import { leadStoreBackends } from './support/backends.ts'
import { defaultLaunch, launchSite, mailFor, newLead, readPageConfig, registration } from './support/fixtures.ts'

// CASL: each lead records the consent it gave (express: the config's unticked updates box ticked; else implied by the
// inquiry, for six months) and who may receive marketing follows from it, on both stores.

const page = readPageConfig()
const quiet = { info() {}, error() {} }
const now = new Date('2026-11-26T15:00:00.000Z')

describe.each(leadStoreBackends())('consent kind', (backend) => {
  let store: LeadStore
  beforeAll(() => backend.setup(), 60_000)
  afterAll(() => backend.teardown())
  beforeEach(async () => {
    store = await backend.fresh()
    return () => store.close()
  })

  describe(backend.name, () => {
    it('records express when the updates box is ticked, implied (for six months from the inquiry) when it is not', async () => {
      expect(page.form.expressConsentField).toBe('updates')
      const app = createApp({
        launches: [launchSite(page, { notifyEmail: 'sales@example.com' })],
        defaultLaunch,
        store,
        anonKeys: [localAnonKey],
        allowedOrigins: ['https://www.example.com'],
        rateLimitPerMinute: 0,
        clock: () => now,
        log: quiet,
      })
      const post = (body: Record<string, unknown>) =>
        app.request('http://site.test/functions/v1/send-contact-email', {
          method: 'POST',
          headers: {
            apikey: localAnonKey,
            'content-type': 'application/json',
            host: 'site.test',
            origin: 'https://www.example.com',
          },
          body: JSON.stringify(body),
        })
      const ticked = registration({ email: 'ticked@example.com', updates: true })
      const unticked = registration({ email: 'unticked@example.com', updates: false })
      const absent = registration({ email: 'absent@example.com' })
      for (const body of [ticked, unticked, absent]) expect((await post(body)).status).toBe(200)
      const stored = new Map((await store.listLeads(0, 10)).map((lead) => [lead.fields.email, lead]))
      expect(stored.get('ticked@example.com')).toMatchObject({
        consentKind: 'express',
        impliedConsentUntil: '2027-05-26T15:00:00.000Z',
      })
      expect(stored.get('unticked@example.com')).toMatchObject({
        consentKind: 'implied',
        impliedConsentUntil: '2027-05-26T15:00:00.000Z',
      })
      expect(stored.get('absent@example.com')).toMatchObject({
        consentKind: 'implied',
        impliedConsentUntil: '2027-05-26T15:00:00.000Z',
      })
    })

    it('lists for marketing the express leads and the implied ones not yet ended, never withdrawn or spam', async () => {
      const save = async (email: string, createdAt: string, more: Parameters<typeof newLead>[0] = {}) => {
        const lead = newLead({
          createdAt,
          fields: { name: 'Pat', email, phone: '555-555-0100', isRealtor: 'no' },
          ...more,
        })
        return (await store.saveLead(lead, mailFor(lead))).lead
      }
      const old = '2026-01-10T10:00:00.000Z' // implied consent ended 10 July 2026
      await save('express@example.com', old, { consentKind: 'express', impliedConsentUntil: impliedConsentEnd(old) })
      await save('recent@example.com', '2026-09-01T10:00:00.000Z')
      const expired = await save('expired@example.com', old)
      expect(expired).toMatchObject({ consentKind: 'implied', impliedConsentUntil: '2026-07-10T10:00:00.000Z' })
      await save('spam@example.com', '2026-09-01T10:00:00.000Z', { suspectedSpam: true })
      const gone = await save('gone@example.com', '2026-09-01T10:00:00.000Z')
      await store.withdrawLead(gone.submissionId, now)
      await save('gone@example.com', '2026-10-01T10:00:00.000Z', { consentKind: 'express' })
      await save('other@example.com', '2026-09-01T10:00:00.000Z', { launch: 'maple-ridge' })
      const listed = await store.listMarketableLeads(defaultLaunch, now)
      expect(listed.map((lead) => lead.fields.email).sort()).toEqual(['express@example.com', 'recent@example.com'])
      // The same leads a moment after the recent one's six months: only the express one is left.
      const later = await store.listMarketableLeads(defaultLaunch, new Date('2027-03-01T10:00:00.001Z'))
      expect(later.map((lead) => lead.fields.email)).toEqual(['express@example.com'])
    })
  })
})

describe('implied consent: six months of calendar', () => {
  it("ends on the same day six months on, or the month's last day when it has none", () => {
    expect(impliedConsentEnd('2026-11-26T09:30:00.000Z')).toBe('2027-05-26T09:30:00.000Z')
    expect(impliedConsentEnd('2026-08-31T12:00:00.000Z')).toBe('2027-02-28T12:00:00.000Z')
    expect(impliedConsentEnd('2027-08-31T12:00:00.000Z')).toBe('2028-02-29T12:00:00.000Z')
    expect(addMonthsUtc('2026-12-31T23:59:59.999Z', 2)).toBe('2027-02-28T23:59:59.999Z')
  })

  it('allows marketing until the moment it ends, and express consent always', () => {
    const lead = { consentKind: 'implied' as const, impliedConsentUntil: '2027-05-26T09:30:00.000Z' }
    expect(mayMarket(lead, new Date('2027-05-26T09:29:59.999Z'))).toBe(true)
    expect(mayMarket(lead, new Date('2027-05-26T09:30:00.000Z'))).toBe(false)
    expect(mayMarket({ ...lead, consentKind: 'express' }, new Date('2030-01-01T00:00:00.000Z'))).toBe(true)
  })
})

describe('SQLite schema version 12', () => {
  it('reads the leads of a version 11 file as implied, ending six months after each, and keeps its outbox', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vip-consent-upgrade-'))
    const file = path.join(dir, 'leads.sqlite')
    const first = openSqliteStore(file, { defaultLaunch })
    const lead = newLead({ createdAt: '2025-08-31T08:00:00.000Z' })
    const saved = (await first.saveLead(lead, mailFor(lead))).lead
    await first.close()
    // Back to version 11's shape: no consent columns, no announcements, the outbox without announcement_id.
    const db = new Database(file)
    db.exec(`ALTER TABLE leads DROP COLUMN consent_kind; ALTER TABLE leads DROP COLUMN implied_until;
      DROP INDEX outbox_announcement; ALTER TABLE outbox DROP COLUMN announcement_id; DROP TABLE announcements; PRAGMA user_version = 11;`)
    db.close()
    const reopened = openSqliteStore(file, { defaultLaunch })
    try {
      expect(await reopened.findLead(saved.submissionId)).toMatchObject({
        consentKind: 'implied',
        impliedConsentUntil: '2026-02-28T08:00:00.000Z',
      })
      expect((await reopened.listMessages({ limit: 10 })).map((m) => [m.leadId, m.kind])).toEqual([
        [saved.id, 'notification'],
      ])
      const raw = new Database(file, { readonly: true })
      expect(raw.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(12)
      raw.close()
    } finally {
      await reopened.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
