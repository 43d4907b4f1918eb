import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createPostgresStore } from '../../src/server/store/postgres/postgres-store.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { LeadStore, StoredLead } from '../../src/server/store/store.ts'
import { addressKeyOf } from '../../src/server/store/suppression.ts'
import { createPhoneReader } from '../../src/server/leads-page/phone-numbers.ts'
import { createSignInLimiter } from '../../src/server/registration/sign-in-limits.ts'
import { defaultLaunch, mailFor, newLead } from './support/fixtures.ts'
import { plannedPostgresKind, startTestPostgres, type TestPostgres } from './support/postgres.ts'

/** One backend under the contract: how to get a fresh, empty store, and how to open the same data again. */
type Backend = {
  name: string
  setup(): Promise<void>
  fresh(): Promise<LeadStore>
  reopen(): Promise<LeadStore>
  /** Marks a lead withdrawn, as the CASL withdrawal feature will. */
  withdraw(submissionId: string): Promise<void>
  /** Makes a lead look stored before launches were kept: no launch. */
  forgetLaunch(submissionId: string): Promise<void>
  teardown(): Promise<void>
}

/** SQLite on disk; with `writerThread`, its saves on the writer thread as the Node server opens it. */
function sqliteBackend(writerThread = false): Backend {
  let dir = ''
  let file = ''
  return {
    name: writerThread ? 'SQLite on disk, writer thread' : 'SQLite on disk',
    async setup() {
      dir = mkdtempSync(path.join(tmpdir(), 'vip-sqlite-'))
    },
    async fresh() {
      file = path.join(dir, `${crypto.randomUUID()}.sqlite`)
      return openSqliteStore(file, { defaultLaunch, writerThread })
    },
    async reopen() {
      return openSqliteStore(file, { defaultLaunch, writerThread })
    },
    async withdraw(submissionId) {
      const db = new Database(file)
      db.prepare('UPDATE leads SET withdrawn_at = ? WHERE submission_id = ?').run(
        new Date().toISOString(),
        submissionId,
      )
      db.close()
    },
    async forgetLaunch(submissionId) {
      const db = new Database(file)
      db.prepare('UPDATE leads SET launch = NULL WHERE submission_id = ?').run(submissionId)
      db.close()
    },
    async teardown() {
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

function postgresBackend(): Backend {
  let pg: TestPostgres | undefined
  return {
    name: `PostgreSQL (${plannedPostgresKind()})`,
    async setup() {
      pg = await startTestPostgres()
    },
    async fresh() {
      await pg!.reset()
      return createPostgresStore(pg!.db, { defaultLaunch })
    },
    async reopen() {
      return createPostgresStore(pg!.db, { defaultLaunch })
    },
    async withdraw(submissionId) {
      await pg!.db.query('UPDATE public.leads SET withdrawn_at = now() WHERE submission_id = $1', [submissionId])
    },
    async forgetLaunch(submissionId) {
      await pg!.db.query('UPDATE public.leads SET launch = NULL WHERE submission_id = $1', [submissionId])
    },
    async teardown() {
      await pg?.stop()
    },
  }
}

const at = (iso: string) => new Date(iso)

describe.each([sqliteBackend(), sqliteBackend(true), postgresBackend()])('LeadStore contract', (backend) => {
  let store: LeadStore

  beforeAll(() => backend.setup(), 60_000)
  afterAll(() => backend.teardown())
  beforeEach(async () => {
    store = await backend.fresh()
    return () => store.close()
  })

  describe(backend.name, () => {
    it("keeps the sign-in limiter's counts: failures by key within the minute, devices until they expire, across reopening", async () => {
      let now = at('2026-03-02T15:00:00.000Z')
      const lines: string[] = []
      const limiterOf = (counts: LeadStore) =>
        createSignInLimiter({ counts, clock: () => now, log: { info: (m) => lines.push(m) } })
      const limiter = limiterOf(store)
      const known = await limiter.recordSuccess({ address: '198.51.100.20', account: 'team' })
      for (let i = 1; i <= 10; i++) {
        const attempt = { address: `2001:db8:5:${i}::9`, account: 'team' }
        expect((await limiter.check(attempt)).allowed).toBe(true)
        await limiter.recordFailure(attempt)
        now = new Date(now.getTime() + 1_000)
      }
      // Another server on the same data sees the same counts.
      const other = limiterOf(await backend.reopen())
      expect(await other.check({ address: '192.0.2.1', account: 'team' })).toEqual({
        allowed: false,
        retryAfterSeconds: 50,
        budget: 'account',
      })
      expect(lines.at(-1)).toContain('client "192.0.2.1"')
      expect(await other.check({ address: '192.0.2.1', account: 'team', device: known.token })).toEqual({
        allowed: true,
        knownDevice: true,
      })
      expect((await other.check({ address: '192.0.2.1', account: 'someone-else', device: known.token })).allowed).toBe(
        true,
      )
      expect(await other.check({ address: '192.0.2.1', account: 'team', device: 'forged' })).toMatchObject({
        allowed: false,
      })
      // A minute after the first failure it has gone from the window; the device is forgotten after 30 days.
      now = new Date(at('2026-03-02T15:00:00.000Z').getTime() + 60_000)
      expect((await other.check({ address: '192.0.2.1', account: 'team' })).allowed).toBe(true)
      now = new Date(at('2026-03-02T15:00:00.000Z').getTime() + 30 * 86_400_000 + 1)
      expect(await other.check({ address: '192.0.2.1', account: 'team', device: known.token })).toEqual({
        allowed: true,
        knownDevice: false,
      })
      expect(known.maxAgeSeconds).toBe(30 * 86_400)
    })

    it('stores a lead with every field and its pending notification together', async () => {
      const lead = newLead({
        referrer: 'https://www.google.com/',
        utm: { utm_source: 'google', utm_campaign: 'spring' },
      })
      const result = await store.saveLead(lead, mailFor(lead))
      expect(result.created).toBe(true)
      expect(result.lead).toEqual({ ...lead, id: result.lead.id, firstRegisteredAt: lead.createdAt })
      expect(await store.listLeads(0, 10)).toEqual([{ ...lead, id: result.lead.id, firstRegisteredAt: lead.createdAt }])
      expect(await store.countMail()).toEqual({ pending: 1, sent: 0 })
    })

    it('answers each new lead as reading it back gives it, saved alone or with others at once', async () => {
      const leads = [
        newLead({ launch: '', phase: 'vip', consentKind: 'express' }),
        newLead({ launch: 'maple-ridge', clickIds: { gclid: 'Cj0KCQ' }, consentReported: 'Other words' }),
        newLead({ suspectedSpam: true, referrer: 'https://www.google.com/', userAgent: null }),
      ]
      const alone = await store.saveLead(leads[0]!, null)
      const together = await Promise.all(leads.slice(1).map((lead) => store.saveLead(lead, mailFor(lead))))
      for (const { lead } of [alone, ...together]) expect(lead).toEqual(await store.findLead(lead.submissionId))
    })

    it('stores a suspected-spam lead with its click ids and landing page, and no notification', async () => {
      const lead = newLead({
        suspectedSpam: true,
        clickIds: { gclid: 'Cj0KCQ', msclkid: 'abc123' },
        landingPage: '/spring',
      })
      const result = await store.saveLead(lead, null)
      expect(result.created).toBe(true)
      expect(await store.listLeads(0, 10)).toEqual([{ ...lead, id: result.lead.id, firstRegisteredAt: lead.createdAt }])
      expect(await store.countMail()).toEqual({ pending: 0, sent: 0 })
      expect(await store.claimDueMail(new Date('2030-01-01T00:00:00Z'), 10, 1000)).toEqual([])
    })

    it('keeps the consent evidence: the hash of the text shown, and the text the browser reported apart', async () => {
      const lead = newLead({ consentReported: 'Visit https://evil.example\nnow' })
      const result = await store.saveLead(lead, mailFor(lead))
      const [stored] = await store.listLeads(0, 10)
      for (const got of [result.lead, stored]) {
        expect(got).toMatchObject({
          consentText: 'By submitting, you agree to be contacted with VIP updates.',
          consentSha256: '6ac42fa0ae3a14bbbe41fd46fb467154203be57a24ffff181293241be1837a8c',
          consentReported: 'Visit https://evil.example\nnow',
        })
      }
    })

    it('stores a repeated submission id once and answers with the stored lead', async () => {
      const lead = newLead()
      const first = await store.saveLead(lead, mailFor(lead))
      const again = await store.saveLead({ ...lead, fields: { ...lead.fields, name: 'Someone Else' } }, mailFor(lead))
      expect(again.created).toBe(false)
      expect(again.lead.id).toBe(first.lead.id)
      expect(again.lead.fields.name).toBe('Jane Doe')
      expect(await store.listLeads(0, 10)).toHaveLength(1)
      expect(await store.countMail()).toEqual({ pending: 1, sent: 0 })
    })

    it('stores exactly one of many concurrent saves of the same submission', async () => {
      const lead = newLead()
      const results = await Promise.all(Array.from({ length: 20 }, () => store.saveLead(lead, mailFor(lead))))
      expect(results.filter((r) => r.created)).toHaveLength(1)
      expect(new Set(results.map((r) => r.lead.id)).size).toBe(1)
      expect(await store.countMail()).toEqual({ pending: 1, sent: 0 })
    })

    it('stores neither the lead nor the notification when either cannot be stored', async () => {
      const lead = newLead()
      const broken = { ...mailFor(lead), to: null as unknown as string }
      await expect(store.saveLead(lead, broken)).rejects.toThrow()
      expect(await store.listLeads(0, 10)).toEqual([])
      expect(await store.countMail()).toEqual({ pending: 0, sent: 0 })
      // and the same submission can still be stored afterwards
      expect((await store.saveLead(lead, mailFor(lead))).created).toBe(true)
    })

    it('fails only the save that cannot be stored when several arrive together', async () => {
      const [a, b, c] = [newLead(), newLead(), newLead()]
      const results = await Promise.allSettled([
        store.saveLead(a, mailFor(a)),
        store.saveLead(b, { ...mailFor(b), to: null as unknown as string }),
        store.saveLead(c, mailFor(c)),
      ])
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
      expect((await store.listLeads(0, 10)).map((l) => l.submissionId).sort()).toEqual(
        [a.submissionId, c.submissionId].sort(),
      )
      expect(await store.countMail()).toEqual({ pending: 2, sent: 0 })
    })

    it('hands a due notification to one claimer at a time, until its lease runs out', async () => {
      const lead = newLead()
      await store.saveLead(lead, mailFor(lead))
      const now = at('2025-06-01T15:00:00.000Z')
      const [a, b] = await Promise.all([store.claimDueMail(now, 10, 60_000), store.claimDueMail(now, 10, 60_000)])
      expect([...a, ...b]).toHaveLength(1)
      const job = [...a, ...b][0]!
      expect(job.attempts).toBe(0)
      expect(job).toMatchObject({ kind: 'notification', mail: mailFor(lead), withdrawn: false })
      expect(await store.claimDueMail(at('2025-06-01T15:00:59.000Z'), 10, 60_000)).toEqual([])
      const reclaimed = await store.claimDueMail(at('2025-06-01T15:01:00.000Z'), 10, 60_000)
      expect(reclaimed.map((j) => j.id)).toEqual([job.id])
    })

    it('does not claim a notification before it is due', async () => {
      const lead = newLead({ createdAt: '2025-06-01T15:00:00.000Z' })
      await store.saveLead(lead, mailFor(lead))
      expect(await store.claimDueMail(at('2025-06-01T14:59:59.000Z'), 10, 60_000)).toEqual([])
    })

    it('retries a failed notification after its backoff, counting attempts', async () => {
      const lead = newLead()
      await store.saveLead(lead, mailFor(lead))
      const [job] = await store.claimDueMail(at('2025-06-01T15:00:00.000Z'), 10, 60_000)
      await store.markMailFailed(job!.id, 'Error: connect ECONNREFUSED', at('2025-06-01T15:00:30.000Z'))
      expect(await store.claimDueMail(at('2025-06-01T15:00:29.000Z'), 10, 60_000)).toEqual([])
      const [retry] = await store.claimDueMail(at('2025-06-01T15:00:30.000Z'), 10, 60_000)
      expect(retry?.id).toBe(job!.id)
      expect(retry?.attempts).toBe(1)
      expect(await store.countMail()).toEqual({ pending: 1, sent: 0 })
    })

    it('never hands out a notification once it is marked sent', async () => {
      const lead = newLead()
      await store.saveLead(lead, mailFor(lead))
      const jobs = await store.claimDueMail(at('2025-06-01T15:00:00.000Z'), 10, 60_000)
      await store.markMailSent(
        jobs.map((j) => j.id),
        at('2025-06-01T15:00:01.000Z'),
      )
      expect(await store.claimDueMail(at('2025-06-02T00:00:00.000Z'), 10, 60_000)).toEqual([])
      expect(await store.countMail()).toEqual({ pending: 0, sent: 1 })
    })

    it('claims at most the batch size, oldest first', async () => {
      const leads = Array.from({ length: 5 }, (_, i) => newLead({ createdAt: `2025-06-01T14:0${i}:00.000Z` }))
      for (const lead of leads.reverse()) await store.saveLead(lead, mailFor(lead))
      const jobs = await store.claimDueMail(at('2025-06-01T15:00:00.000Z'), 3, 60_000)
      expect(jobs).toHaveLength(3)
      const all = await store.listLeads(0, 10)
      const byTime = [...all].sort((x, y) => x.createdAt.localeCompare(y.createdAt)).slice(0, 3)
      expect(jobs.map((j) => j.leadId).sort()).toEqual(byTime.map((l) => l.id).sort())
    })

    it('pages through leads in id order for the export', async () => {
      for (let i = 0; i < 7; i++) {
        const lead = newLead({
          fields: { name: `Lead ${i}`, email: `l${i}@example.com`, phone: '5555550100', isRealtor: 'yes' },
        })
        await store.saveLead(lead, mailFor(lead))
      }
      const first = await store.listLeads(0, 3)
      const second = await store.listLeads(first.at(-1)!.id, 3)
      const third = await store.listLeads(second.at(-1)!.id, 3)
      expect([...first, ...second, ...third].map((l) => l.fields.name)).toEqual(
        Array.from({ length: 7 }, (_, i) => `Lead ${i}`),
      )
      expect(third).toHaveLength(1)
    })

    const secret = 'test-secret-test-secret'
    const keyOf = (email: string) => addressKeyOf(secret, email)
    const person = (email: string, createdAt = '2025-06-01T14:30:00.000Z') =>
      newLead({ createdAt, fields: { name: 'Jane Doe', email, phone: '555-555-0100', isRealtor: 'no' } })

    it('erases every lead of an address, whatever its letter case, with its notifications, and nothing else', async () => {
      const mine = [person('jane@example.com'), person('Jane@Example.COM')]
      const other = person('john@example.com')
      for (const lead of [...mine, other]) await store.saveLead(lead, mailFor(lead))
      expect(await store.countErasable({ email: ' JANE@example.com ' })).toEqual({ leads: 2, messages: 2 })
      const result = await store.eraseLeads({ email: ' JANE@example.com ' }, keyOf)
      expect(result).toEqual({
        leads: 2,
        messages: 2,
        suppressed: 0,
        messageIds: expect.arrayContaining(mine.map((l) => mailFor(l).messageId)),
      })
      expect((await store.listLeads(0, 10)).map((l) => l.submissionId)).toEqual([other.submissionId])
      expect(await store.countMail()).toEqual({ pending: 1, sent: 0 })
      expect(await store.countErasable({ email: 'jane@example.com' })).toEqual({ leads: 0, messages: 0 })
    })

    it('erases one submission by its id', async () => {
      const [a, b] = [person('jane@example.com'), person('jane@example.com')]
      for (const lead of [a, b]) await store.saveLead(lead, mailFor(lead))
      const result = await store.eraseLeads({ submissionId: a.submissionId.toUpperCase() }, keyOf)
      expect(result).toMatchObject({ leads: 1, messages: 1, messageIds: [mailFor(a).messageId] })
      expect((await store.listLeads(0, 10)).map((l) => l.submissionId)).toEqual([b.submissionId])
    })

    it('erases leads stored before a time (the retention period), sent notifications included', async () => {
      const old = person('old@example.com', '2024-01-01T00:00:00.000Z')
      const recent = person('new@example.com', '2025-06-01T00:00:00.000Z')
      for (const lead of [old, recent]) await store.saveLead(lead, mailFor(lead))
      const jobs = await store.claimDueMail(at('2025-06-02T00:00:00.000Z'), 10, 60_000)
      await store.markMailSent(
        jobs.map((j) => j.id),
        at('2025-06-02T00:00:01.000Z'),
      )
      expect(await store.eraseLeads({ createdBefore: at('2025-01-01T00:00:00.000Z') }, keyOf)).toMatchObject({
        leads: 1,
        messages: 1,
      })
      expect((await store.listLeads(0, 10)).map((l) => l.submissionId)).toEqual([recent.submissionId])
      expect(await store.countMail()).toEqual({ pending: 0, sent: 1 })
    })

    it('keeps a withdrawn address suppressed (as a keyed hash) after its leads are erased', async () => {
      const withdrawn = person('gone@example.com')
      const stays = person('stays@example.com')
      for (const lead of [withdrawn, stays]) await store.saveLead(lead, mailFor(lead))
      await backend.withdraw(withdrawn.submissionId)
      expect(await store.isSuppressed(await keyOf('gone@example.com'))).toBe(false)
      expect(await store.eraseLeads({ email: 'gone@example.com' }, keyOf)).toMatchObject({ leads: 1, suppressed: 1 })
      expect(await store.isSuppressed(await keyOf('Gone@Example.com'))).toBe(true)
      // A key made with another secret does not match: the list cannot be checked without the server's secret.
      expect(await store.isSuppressed(await addressKeyOf('another-secret-another', 'gone@example.com'))).toBe(false)
      expect(await store.eraseLeads({ email: 'stays@example.com' }, keyOf)).toMatchObject({ leads: 1, suppressed: 0 })
      expect(await store.isSuppressed(await keyOf('stays@example.com'))).toBe(false)
    })

    it('suppresses an address once, however often it is added', async () => {
      const key = await keyOf('someone@example.com')
      await store.suppressAddress(key)
      await store.suppressAddress(key)
      expect(await store.isSuppressed(key)).toBe(true)
      expect(key).toMatch(/^[0-9a-f]{64}$/)
      expect(key).not.toContain('someone')
    })

    it('lists leads newest first with their notification state, a page at a time in both directions', async () => {
      const saved: StoredLead[] = []
      for (let i = 0; i < 7; i++) {
        // Two leads in the same millisecond: the id breaks the tie.
        const lead = newLead({
          createdAt: `2025-06-0${i === 6 ? 6 : i + 1}T14:30:00.000Z`,
          fields: { name: `Lead ${i}`, email: `l${i}@example.com`, phone: '555-555-0100', isRealtor: 'no' },
        })
        saved.push((await store.saveLead(lead, mailFor(lead))).lead)
      }
      const jobs = await store.claimDueMail(at('2025-06-10T00:00:00.000Z'), 10, 60_000)
      const jobOf = (name: string) => jobs.find((j) => j.leadId === saved.find((l) => l.fields.name === name)!.id)!
      await store.markMailSent([jobOf('Lead 6').id], at('2025-06-10T00:00:01.000Z'))
      await store.markMailFailed(jobOf('Lead 5').id, 'Error: connect ECONNREFUSED', at('2025-06-10T00:01:00.000Z'))

      const first = await store.searchLeads({ limit: 3 })
      expect(first.leads.map((l) => l.fields.name)).toEqual(['Lead 6', 'Lead 5', 'Lead 4'])
      expect(first.leads.map((l) => l.notification)).toEqual([
        { status: 'sent', attempts: 1 },
        { status: 'retrying', attempts: 1 },
        { status: 'pending', attempts: 0 },
      ])
      expect(first).toMatchObject({ total: 7, hasNewer: false, hasOlder: true })
      expect(first.leads[0]).toMatchObject({ ...saved[6], notification: { status: 'sent' } })

      const position = (lead: { createdAt: string; id: number }) => ({ createdAt: lead.createdAt, id: lead.id })
      const second = await store.searchLeads({ limit: 3, from: { older: position(first.leads.at(-1)!) } })
      expect(second.leads.map((l) => l.fields.name)).toEqual(['Lead 3', 'Lead 2', 'Lead 1'])
      expect(second).toMatchObject({ hasNewer: true, hasOlder: true })
      const third = await store.searchLeads({ limit: 3, from: { older: position(second.leads.at(-1)!) } })
      expect(third.leads.map((l) => l.fields.name)).toEqual(['Lead 0'])
      expect(third).toMatchObject({ hasNewer: true, hasOlder: false })
      const back = await store.searchLeads({ limit: 3, from: { newer: position(third.leads[0]!) } })
      expect(back.leads.map((l) => l.fields.name)).toEqual(['Lead 3', 'Lead 2', 'Lead 1'])
    })

    it('pages through the matches of a text search in both directions, with their count', async () => {
      // Seven leads a day apart, the odd ones at example.org; Lead 6 in the same millisecond as Lead 4 (the id breaks
      // the tie), so Lead 5 is the newest.
      for (let i = 0; i < 7; i++) {
        const lead = newLead({
          createdAt: `2025-06-0${i === 6 ? 5 : i + 1}T14:30:00.000Z`,
          fields: {
            name: `Lead ${i}`,
            email: `l${i}@example.${i % 2 ? 'org' : 'com'}`,
            phone: '555-555-0100',
            isRealtor: 'no',
          },
        })
        await store.saveLead(lead, mailFor(lead))
      }
      const names = (page: { leads: Array<{ fields: Record<string, unknown> }> }) =>
        page.leads.map((l) => l.fields.name)
      const position = (lead: { createdAt: string; id: number }) => ({ createdAt: lead.createdAt, id: lead.id })
      const first = await store.searchLeads({ text: 'example.com', limit: 2 })
      expect(names(first)).toEqual(['Lead 6', 'Lead 4'])
      expect(first).toMatchObject({ total: 4, hasNewer: false, hasOlder: true })
      expect(first.leads[1]!.notification).toEqual({ status: 'pending', attempts: 0 })
      const second = await store.searchLeads({
        text: 'example.com',
        limit: 2,
        from: { older: position(first.leads[1]!) },
      })
      expect(names(second)).toEqual(['Lead 2', 'Lead 0'])
      expect(second).toMatchObject({ total: 4, hasNewer: true, hasOlder: false })
      const back = await store.searchLeads({
        text: 'example.com',
        limit: 2,
        from: { newer: position(second.leads[0]!) },
      })
      expect(names(back)).toEqual(['Lead 6', 'Lead 4'])
      expect(back).toMatchObject({ hasNewer: false, hasOlder: true })
      const middle = await store.searchLeads({
        text: 'example.org',
        limit: 1,
        from: { older: position(first.leads[0]!) },
      })
      expect(names(middle)).toEqual(['Lead 3'])
      expect(middle).toMatchObject({ total: 3, hasNewer: true, hasOlder: true })
      const past = await store.searchLeads({
        text: 'example.com',
        limit: 2,
        from: { older: position(second.leads[1]!) },
      })
      expect(past).toMatchObject({ leads: [], total: 4, hasNewer: true, hasOlder: false })
      expect(await store.searchLeads({ text: 'nobody', limit: 2 })).toMatchObject({
        leads: [],
        total: 0,
        hasNewer: false,
        hasOlder: false,
      })
    })

    /**
     * Stores a lead for each of `people` (a day apart, the first oldest) and returns a search by text, newest first.
     */
    async function searchable(people: Array<Record<string, unknown>>): Promise<(text: string) => Promise<unknown[]>> {
      for (const [i, fields] of people.entries()) {
        const lead = newLead({ createdAt: `2025-06-0${i + 1}T14:30:00.000Z`, fields })
        await store.saveLead(lead, mailFor(lead))
      }
      return async (text) => (await store.searchLeads({ text, limit: 10 })).leads.map((l) => l.fields.name)
    }

    it('finds leads by text in any form field, whatever the case, and phone numbers whatever their separators', async () => {
      const people = [
        { name: 'Ada Lovelace', email: 'ada@example.com', phone: '(416) 555-0101', isRealtor: 'no' },
        {
          name: 'Grace Hopper',
          email: 'grace@navy.example',
          phone: '905.555.0199',
          isRealtor: 'yes',
          brokerage: 'Hopper Realty 100%',
        },
        { name: 'Alan Turing', email: 'alan@example.com', phone: '+1 613 555 0142', isRealtor: 'no' },
      ]
      const names = await searchable(people)
      expect(await names('ADA')).toEqual(['Ada Lovelace'])
      expect(await names('navy.example')).toEqual(['Grace Hopper'])
      expect(await names('416 555 0101')).toEqual(['Ada Lovelace'])
      expect(await names('9055550199')).toEqual(['Grace Hopper'])
      expect(await names('realty')).toEqual(['Grace Hopper'])
      expect(await names('100%')).toEqual(['Grace Hopper'])
      expect(await names('%')).toEqual(['Grace Hopper'])
      expect(await names('_')).toEqual([])
      expect(await names('example.com')).toEqual(['Alan Turing', 'Ada Lovelace'])
      expect(await names('  ')).toEqual(['Alan Turing', 'Grace Hopper', 'Ada Lovelace'])
      expect(await names('nobody')).toEqual([])
      expect((await store.searchLeads({ text: 'example.com', limit: 1 })).total).toBe(2)
    })

    it("finds text that JSON writes escaped (a quote, a backslash), letters beyond ASCII, and never a field's name", async () => {
      const names = await searchable([
        { name: 'Seán O"Neil \\ Jr', email: 'sean@example.org', phone: '647-555-0177', isRealtor: 'no' },
        { name: 'Zoë Ng', email: 'zoe@example.org', phone: '+1 (647) 555-0178', isRealtor: 'no' },
      ])
      const sean = 'Seán O"Neil \\ Jr'
      // Each search and whom it finds, newest first.
      const found = await Promise.all(
        ['O"Neil', 'Neil \\ Jr', 'Seán', 'Zoë', '6475550178', '647 555', '5550177', 'isRealtor', '"name"'].map(names),
      )
      expect(found).toEqual([[sean], [sean], [sean], ['Zoë Ng'], ['Zoë Ng'], ['Zoë Ng', sean], [sean], [], []])
    })

    it('queues the reply and the webhook call with the lead, once each, and hands them out by kind', async () => {
      const lead = newLead()
      const reply = { ...mailFor(lead), to: 'jane@example.com', messageId: `<${lead.submissionId}.reply@example.com>` }
      const webhook = { id: lead.submissionId, body: '{"type":"lead.created"}' }
      const more = [
        { kind: 'reply' as const, mail: reply },
        { kind: 'webhook' as const, webhook },
      ]
      await store.saveLead(lead, mailFor(lead), more)
      await store.saveLead(lead, mailFor(lead), more)
      const jobs = await store.claimDueMail(at('2025-06-01T15:00:00.000Z'), 10, 60_000)
      expect(jobs.map((j) => j.kind)).toEqual(['notification', 'reply', 'webhook'])
      expect(jobs[1]).toMatchObject({ kind: 'reply', mail: reply })
      expect(jobs[2]).toMatchObject({ kind: 'webhook', webhook })
      expect(await store.countMessages()).toEqual({ pending: 3, sent: 0, failed: 0, cancelled: 0 })
    })

    it('queues a notification and a reply to compose when sent, hands them out as queued, reads their leads by id, and erases them by their Message-ID', async () => {
      const lead = person('jane@example.com')
      const other = person('john@example.com')
      const notification = {
        compose: 'notification' as const,
        to: 'sales@example.com',
        messageId: `<${lead.submissionId}.notification@example.com>`,
        assignedTo: 'Sam Seller',
      }
      const reply = {
        compose: 'reply' as const,
        to: 'jane@example.com',
        messageId: `<${lead.submissionId}.reply@example.com>`,
      }
      const saved = await store.saveLead(lead, notification, [{ kind: 'reply', mail: reply }])
      const kept = await store.saveLead(other, mailFor(other))
      const jobs = await store.claimDueMail(at('2025-06-01T15:00:00.000Z'), 10, 60_000)
      expect(jobs.map((j) => [j.kind, j.leadId, j.kind === 'webhook' ? undefined : j.mail])).toEqual([
        ['notification', saved.lead.id, notification],
        ['reply', saved.lead.id, reply],
        ['notification', kept.lead.id, mailFor(other)],
      ])
      const read = await store.leadsById([kept.lead.id, saved.lead.id, saved.lead.id, 987_654])
      expect(read.map((l) => l.submissionId).sort()).toEqual([lead.submissionId, other.submissionId].sort())
      expect(read.find((l) => l.id === saved.lead.id)).toEqual(saved.lead)
      expect(await store.leadsById([])).toEqual([])
      const erased = await store.eraseLeads({ submissionId: lead.submissionId }, keyOf)
      expect(erased).toMatchObject({
        leads: 1,
        messages: 2,
        messageIds: expect.arrayContaining([notification.messageId, reply.messageId]),
      })
      expect(await store.leadsById([saved.lead.id])).toEqual([])
    })

    it('keeps a message failed with its last error until it is retried, and lists its state', async () => {
      const lead = newLead()
      const { lead: stored } = await store.saveLead(lead, mailFor(lead))
      const [job] = await store.claimDueMail(at('2025-06-01T15:00:00.000Z'), 10, 60_000)
      await store.markMailFailed(job!.id, 'SMTP 451: try later', at('2025-06-01T15:00:30.000Z'))
      const [again] = await store.claimDueMail(at('2025-06-01T15:00:30.000Z'), 10, 60_000)
      await store.markMessageFailed(again!.id, 'SMTP 550: mailbox unavailable', at('2025-06-01T15:00:31.000Z'))
      expect(await store.claimDueMail(at('2025-06-03T00:00:00.000Z'), 10, 60_000)).toEqual([])
      expect(await store.countMessages()).toEqual({ pending: 0, sent: 0, failed: 1, cancelled: 0 })
      expect(await store.countMail()).toEqual({ pending: 0, sent: 0 })
      expect(await store.listMessages({ status: 'failed', limit: 10 })).toEqual([
        {
          id: job!.id,
          leadId: stored.id,
          kind: 'notification',
          status: 'failed',
          attempts: 2,
          lastError: 'SMTP 550: mailbox unavailable',
          createdAt: lead.createdAt,
          nextAttemptAt: '2025-06-01T15:00:30.000Z',
          sentAt: null,
          failedAt: '2025-06-01T15:00:31.000Z',
        },
      ])
      expect(await store.retryFailedMessages(at('2025-06-02T09:00:00.000Z'))).toBe(1)
      expect(await store.retryFailedMessages(at('2025-06-02T09:00:00.000Z'))).toBe(0)
      const [retried] = await store.claimDueMail(at('2025-06-02T09:00:00.000Z'), 10, 60_000)
      expect(retried).toMatchObject({ id: job!.id, attempts: 0 })
      await store.markMailSent([retried!.id], at('2025-06-02T09:00:01.000Z'))
      expect(await store.listMessages({ leadId: stored.id, limit: 10 })).toMatchObject([
        { status: 'sent', sentAt: '2025-06-02T09:00:01.000Z' },
      ])
    })

    it('records a withdrawal once, with its first time, and flags every message of that address', async () => {
      const first = newLead()
      const second = newLead({ fields: { ...first.fields, email: ' JANE@example.com ' } })
      const other = newLead({ fields: { ...first.fields, email: 'someone@example.com' } })
      for (const lead of [first, second, other]) await store.saveLead(lead, mailFor(lead))
      expect(await store.isAddressWithdrawn('jane@example.com')).toBe(false)
      const done = await store.withdrawLead(first.submissionId.toUpperCase(), at('2025-06-02T10:00:00.000Z'))
      expect(done).toMatchObject({ withdrawnAt: '2025-06-02T10:00:00.000Z', already: false })
      expect(await store.withdrawLead(first.submissionId, at('2025-06-03T10:00:00.000Z'))).toMatchObject({
        withdrawnAt: '2025-06-02T10:00:00.000Z',
        already: true,
      })
      expect(await store.withdrawLead(crypto.randomUUID(), at('2025-06-03T10:00:00.000Z'))).toBeUndefined()
      expect(await store.isAddressWithdrawn('Jane@Example.com')).toBe(true)
      expect(await store.isAddressWithdrawn('someone@example.com')).toBe(false)
      const leads = await store.listLeads(0, 10)
      expect(leads.map((l) => l.withdrawnAt)).toEqual(['2025-06-02T10:00:00.000Z', undefined, undefined])
      const jobs = await store.claimDueMail(at('2025-06-03T00:00:00.000Z'), 10, 60_000)
      expect(jobs.map((j) => j.withdrawn)).toEqual([true, true, false])
      await store.markMessageCancelled(jobs[1]!.id, at('2025-06-03T00:00:01.000Z'))
      expect(await store.countMessages()).toEqual({ pending: 2, sent: 0, failed: 0, cancelled: 1 })
    })

    it('keeps the phase each lead registered in, and none for a launch without phases', async () => {
      const inVip = newLead({ phase: 'vip' })
      const inPublic = newLead({ phase: 'public', createdAt: '2025-06-02T10:00:00.000Z' })
      const without = newLead({ createdAt: '2025-06-03T10:00:00.000Z' })
      for (const lead of [inVip, inPublic, without])
        expect((await store.saveLead(lead, mailFor(lead))).lead.phase).toBe(lead.phase)
      const reopened = await backend.reopen()
      expect((await reopened.listLeads(0, 10)).map((lead) => lead.phase)).toEqual(['vip', 'public', undefined])
      expect((await reopened.findLead(inPublic.submissionId))?.phase).toBe('public')
      expect((await reopened.searchLeads({ limit: 10 })).leads.map((lead) => lead.phase)).toEqual([
        undefined,
        'public',
        'vip',
      ])
      await reopened.close()
    })

    it("keeps each lead's launch, and lists, searches and counts one launch at a time, the default one with the leads stored before launches or without one", async () => {
      const lead = (name: string, day: number, launch: string) =>
        newLead({
          launch,
          createdAt: `2025-06-0${day}T14:30:00.000Z`,
          fields: { name, email: `${name.toLowerCase()}@example.com`, phone: '416-555-0100', isRealtor: 'no' },
        })
      const leads = [
        lead('Ada', 1, defaultLaunch),
        lead('Grace', 2, 'willowmere-commons'),
        lead('Alan', 3, defaultLaunch),
        lead('Hedy', 4, 'maple-ridge'),
        lead('Edsger', 5, 'willowmere-commons'),
        lead('Barbara', 6, ''),
      ]
      for (const l of leads) expect((await store.saveLead(l, mailFor(l))).lead.launch).toBe(l.launch || defaultLaunch)
      await backend.forgetLaunch(leads[2]!.submissionId)

      expect((await store.listLeads(0, 10)).map((l) => l.launch)).toEqual([
        defaultLaunch,
        'willowmere-commons',
        defaultLaunch,
        'maple-ridge',
        'willowmere-commons',
        defaultLaunch,
      ])
      const names = (list: Array<{ fields: Record<string, unknown> }>) => list.map((l) => l.fields.name)
      expect(names(await store.listLeads(0, 10, defaultLaunch))).toEqual(['Ada', 'Alan', 'Barbara'])
      expect(names(await store.listLeads(0, 10, 'willowmere-commons'))).toEqual(['Grace', 'Edsger'])
      const firstOfWillowmere = await store.listLeads(0, 1, 'willowmere-commons')
      expect(names(await store.listLeads(firstOfWillowmere[0]!.id, 10, 'willowmere-commons'))).toEqual(['Edsger'])
      expect(await store.listLeads(0, 10, 'nowhere')).toEqual([])

      const page = await store.searchLeads({ launch: defaultLaunch, limit: 2 })
      expect(names(page.leads)).toEqual(['Barbara', 'Alan'])
      expect(page.leads[1]!.launch).toBe(defaultLaunch)
      expect(page).toMatchObject({ total: 3, hasNewer: false, hasOlder: true })
      const older = await store.searchLeads({
        launch: defaultLaunch,
        limit: 2,
        from: { older: { createdAt: page.leads[1]!.createdAt, id: page.leads[1]!.id } },
      })
      expect(names(older.leads)).toEqual(['Ada'])
      expect(older).toMatchObject({ total: 3, hasNewer: true, hasOlder: false })
      expect(names((await store.searchLeads({ launch: 'willowmere-commons', text: 'EDS', limit: 10 })).leads)).toEqual([
        'Edsger',
      ])
      expect((await store.searchLeads({ launch: 'maple-ridge', text: 'Ada', limit: 10 })).total).toBe(0)
      expect((await store.searchLeads({ text: '416 555 0100', limit: 10 })).total).toBe(6)
      // An account limited to some launches: only theirs, the default one's with the leads stored without one.
      const limited = await store.searchLeads({ launches: ['maple-ridge', defaultLaunch], limit: 2 })
      expect(names(limited.leads)).toEqual(['Barbara', 'Hedy'])
      expect(limited).toMatchObject({ total: 4, hasNewer: false, hasOlder: true })
      expect(
        names((await store.searchLeads({ launches: ['willowmere-commons'], text: 'gra', limit: 10 })).leads),
      ).toEqual(['Grace'])
      expect(
        (await store.searchLeads({ launches: ['willowmere-commons'], launch: 'maple-ridge', limit: 10 })).total,
      ).toBe(0)
      expect((await store.searchLeads({ launches: [], limit: 10 })).total).toBe(0)

      expect(await store.countLeadsByLaunch()).toEqual([
        { launch: defaultLaunch, leads: 3 },
        { launch: 'maple-ridge', leads: 1 },
        { launch: 'willowmere-commons', leads: 2 },
      ])
      // Erasure and the outbox do not care which launch a lead is from.
      expect(await store.eraseLeads({ email: 'alan@example.com' }, keyOf)).toMatchObject({ leads: 1, messages: 1 })
      expect((await store.claimDueMail(at('2025-06-10T00:00:00.000Z'), 10, 60_000)).length).toBe(5)
      expect(await store.countLeadsByLaunch()).toContainEqual({ launch: defaultLaunch, leads: 2 })
    })

    it('keeps what it acknowledged when opened again', async () => {
      const lead = newLead()
      await store.saveLead(lead, mailFor(lead))
      await store.close()
      store = await backend.reopen()
      expect((await store.listLeads(0, 10)).map((l) => l.submissionId)).toEqual([lead.submissionId])
      expect(await store.countMail()).toEqual({ pending: 1, sent: 0 })
    })

    it('records status, assignee and notes with their history, newest first, and the lead.updated call with each', async () => {
      const lead = newLead()
      const { lead: stored } = await store.saveLead(lead, mailFor(lead), [
        { kind: 'webhook', webhook: { id: lead.submissionId, body: '{}' } },
      ])
      expect(await store.followUpOf(stored.id)).toEqual({ status: null, assignee: '', history: [] })
      const change = (kind: 'status' | 'assignee' | 'note', value: string, at: string, webhook = true) =>
        store.recordFollowUp({
          leadId: stored.id,
          kind,
          value,
          author: 'sam@example.com',
          at,
          webhook: webhook ? { id: `${kind}-${at}`, body: `{"v":"${value}"}` } : undefined,
        })
      expect(await change('status', 'Contacted', '2025-06-02T10:00:00.000Z')).toMatchObject({
        kind: 'status',
        value: 'Contacted',
        author: 'sam@example.com',
      })
      // The same status again is no change: nothing recorded, nothing sent.
      expect(await change('status', 'Contacted', '2025-06-02T10:01:00.000Z')).toBeUndefined()
      await change('assignee', 'alex@example.com', '2025-06-02T10:02:00.000Z')
      await change('note', 'Called, wants a 2-bedroom; call back Friday.', '2025-06-02T10:03:00.000Z', false)
      expect(
        await store.recordFollowUp({
          leadId: stored.id + 999,
          kind: 'note',
          value: 'x',
          author: 'a',
          at: '2025-06-02T10:04:00.000Z',
        }),
      ).toBeUndefined()
      const followUp = await store.followUpOf(stored.id)
      expect(followUp).toMatchObject({ status: 'Contacted', assignee: 'alex@example.com' })
      expect(followUp.history.map((h) => [h.kind, h.value, h.createdAt])).toEqual([
        ['note', 'Called, wants a 2-bedroom; call back Friday.', '2025-06-02T10:03:00.000Z'],
        ['assignee', 'alex@example.com', '2025-06-02T10:02:00.000Z'],
        ['status', 'Contacted', '2025-06-02T10:00:00.000Z'],
      ])
      expect(await store.listAssignees()).toEqual(['alex@example.com'])
      // The lead.created call and one lead.updated call for each change that had one.
      const webhooks = await store.claimDueMail(at('2025-06-03T00:00:00.000Z'), 10, 60_000)
      expect(
        webhooks.filter((job) => job.kind === 'webhook').map((job) => job.kind === 'webhook' && job.webhook.id),
      ).toEqual([lead.submissionId, 'status-2025-06-02T10:00:00.000Z', 'assignee-2025-06-02T10:02:00.000Z'])
      // The list shows where each lead stands, and its filters narrow by it.
      const other = newLead({
        createdAt: '2025-06-01T15:00:00.000Z',
        fields: { name: 'Other', email: 'o@example.com', isRealtor: 'yes' },
      })
      await store.saveLead(other, mailFor(other))
      const listed = await store.searchLeads({ limit: 10 })
      expect(listed.leads.map((l) => l.followUp)).toEqual([
        { status: null, assignee: '' },
        { status: 'Contacted', assignee: 'alex@example.com' },
      ])
      const total = (search: Partial<Parameters<LeadStore['searchLeads']>[0]>) =>
        store.searchLeads({ limit: 10, ...search }).then((page) => page.total)
      expect(await total({ status: { is: 'Contacted', orUnset: false } })).toBe(1)
      expect(await total({ status: { is: 'New', orUnset: true } })).toBe(1)
      expect(await total({ status: { is: 'New', orUnset: false } })).toBe(0)
      expect(await total({ assignee: 'alex@example.com' })).toBe(1)
      expect(await total({ assignee: '' })).toBe(1)
      expect(await total({ realtor: true })).toBe(1)
      expect(await total({ realtor: false, status: { is: 'Contacted', orUnset: false } })).toBe(1)
      expect(await total({ createdFrom: '2025-06-01T14:45:00.000Z' })).toBe(1)
      expect(await total({ createdBefore: '2025-06-01T14:45:00.000Z' })).toBe(1)
      // Erasing the lead takes its follow-up, history and queued messages (notification, lead.created, two
      // lead.updated) with it.
      expect(await store.eraseLeads({ submissionId: lead.submissionId }, keyOf)).toMatchObject({
        leads: 1,
        messages: 4,
      })
      expect(await store.followUpOf(stored.id)).toEqual({ status: null, assignee: '', history: [] })
    })

    it("reads every phone in E.164 and finds one person's registrations by e-mail or phone, across launches", async () => {
      const save = async (launch: string, fields: Record<string, unknown>, createdAt: string) => {
        const lead = newLead({ launch, createdAt, fields })
        return (await store.saveLead(lead, mailFor(lead))).lead.id
      }
      const ada = await save(
        defaultLaunch,
        { name: 'Ada', email: 'Ada@Example.com', phone: '(647) 555-0111' },
        '2025-06-01T10:00:00.000Z',
      )
      const adaAgain = await save(
        'maple-ridge',
        { name: 'Ada L', email: 'ada.l@example.org', phone: '+1 647 555 0111' },
        '2025-06-02T10:00:00.000Z',
      )
      const adaMail = await save(
        'maple-ridge',
        { name: 'Ada', email: ' ada@example.com', phone: '555-0199' },
        '2025-06-03T10:00:00.000Z',
      )
      const grace = await save(
        defaultLaunch,
        { name: 'Grace', email: 'grace@example.com', phone: '(555) 555-0142' },
        '2025-06-04T10:00:00.000Z',
      )
      const noPhone = await save(defaultLaunch, { name: 'Hedy', email: 'hedy@example.com' }, '2025-06-05T10:00:00.000Z')
      const form = {
        schema: { properties: { phone: {} } },
        uiSchema: { phone: { 'ui:options': { inputType: 'tel' } } },
      }
      expect(
        await store.fillPhoneNumbers(
          createPhoneReader(() => form),
          2,
        ),
      ).toBe(5)
      expect(await store.fillPhoneNumbers(createPhoneReader(() => form))).toBe(0)
      expect(
        (await store.searchLeads({ text: '16475550111', phone: '+16475550111', limit: 10 })).leads.map((l) => l.id),
      ).toEqual([adaAgain, ada])
      expect((await store.otherRegistrationsOf(ada)).map((r) => [r.id, r.launch])).toEqual([
        [adaMail, 'maple-ridge'],
        [adaAgain, 'maple-ridge'],
      ])
      expect((await store.otherRegistrationsOf(adaAgain)).map((r) => r.id)).toEqual([ada])
      // Neither an invalid number nor a missing one makes strangers into one person.
      expect(await store.otherRegistrationsOf(grace)).toEqual([])
      expect(await store.otherRegistrationsOf(noPhone)).toEqual([])
      expect(await store.countOtherRegistrations([ada, adaAgain, adaMail, grace, noPhone])).toEqual(
        expect.arrayContaining([
          { leadId: ada, others: 2 },
          { leadId: adaAgain, others: 1 },
          { leadId: adaMail, others: 1 },
        ]),
      )
      expect(await store.countOtherRegistrations([grace, noPhone])).toEqual([])
    })
  })
})

describe('SQLite store opened on a database from before issue 12', () => {
  it('adds the click-id, landing-page and spam columns, keeping the leads it holds', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vip-sqlite-old-'))
    try {
      const file = path.join(dir, 'leads.sqlite')
      const { default: Database } = await import('better-sqlite3')
      const old = new Database(file)
      old.exec(`CREATE TABLE leads (id INTEGER PRIMARY KEY, submission_id TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, fields TEXT NOT NULL,
        consent_text TEXT NOT NULL, page_url TEXT, referrer TEXT, utm TEXT NOT NULL DEFAULT '{}', user_agent TEXT);
        CREATE TABLE outbox (id INTEGER PRIMARY KEY, lead_id INTEGER NOT NULL REFERENCES leads(id), recipient TEXT NOT NULL, mail TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at TEXT NOT NULL, locked_until TEXT,
        last_error TEXT, created_at TEXT NOT NULL, sent_at TEXT);
        INSERT INTO leads (submission_id, created_at, fields, consent_text) VALUES ('00000000-0000-4000-8000-000000000001', '2025-01-01T00:00:00.000Z', '{"name":"Old"}', 'ok');
        PRAGMA user_version = 1;`)
      old.close()
      const store = openSqliteStore(file, { defaultLaunch })
      const [lead] = await store.listLeads(0, 10)
      expect(lead).toMatchObject({ fields: { name: 'Old' }, clickIds: {}, landingPage: null, suspectedSpam: false })
      const fresh = newLead({ clickIds: { fbclid: 'x1' } })
      expect((await store.saveLead(fresh, mailFor(fresh))).lead.clickIds).toEqual({ fbclid: 'x1' })
      await store.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
