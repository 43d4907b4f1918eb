import Database from 'better-sqlite3'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { messageFailedAlert } from '../../src/server/delivery/alerts.ts'
import { backlogInWords, waitInWords } from '../../src/server/delivery/sending/backlog-words.ts'
import { deliveryHealthSection, readDeliveryHealth } from '../../src/server/leads-page/dashboard-view.ts'
import { healthHandler } from '../../src/server/site/health.ts'
import type { LeadStore } from '../../src/server/store/store.ts'
import { leadStoreBackends } from './support/backends.ts'
import { mailFor, newLead } from './support/fixtures.ts'

// How far behind the mail is (OutboxStore.countBacklog) on both stores, as GET /healthz, the leads page's dashboard
// and the owners' alert say it; and postponeMail, the put-off of a receiver's slow-down that counts no attempt.

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString()

describe.each(leadStoreBackends())('the outbox backlog', (backend) => {
  let store: LeadStore

  beforeAll(() => backend.setup(), 60_000)
  afterAll(() => backend.teardown())
  beforeEach(async () => {
    store = await backend.fresh()
  })

  async function queue(createdAt: string): Promise<void> {
    const lead = newLead({ createdAt })
    await store.saveLead(lead, mailFor(lead))
  }

  it('counts the waiting messages and the age of the oldest, on /healthz and in words', async () => {
    await queue(minutesAgo(12))
    await queue(minutesAgo(3))
    await queue(minutesAgo(1))
    const backlog = await store.countBacklog()
    expect(backlog.pending).toBe(3)
    expect(Math.abs(backlog.oldestPendingAt!.getTime() - Date.parse(minutesAgo(12)))).toBeLessThan(5_000)

    const response = await healthHandler(store)()
    expect(response.status).toBe(200)
    const body = (await response.json()) as {
      outbox: { pending: number; failed: number; oldestPendingSeconds: number }
    }
    expect(body.outbox.pending).toBe(3)
    expect(body.outbox.failed).toBe(0)
    expect(body.outbox.oldestPendingSeconds).toBeGreaterThanOrEqual(12 * 60 - 1)
    expect(body.outbox.oldestPendingSeconds).toBeLessThan(12 * 60 + 10)
    // Counts only: nothing of a person.
    expect(JSON.stringify(body)).not.toMatch(/@|Jane|555/)

    // The oldest sent: the next one is the oldest.
    const [first] = await store.claimDueMail(new Date(), 1, 60_000)
    await store.markMailSent([first!.id], new Date())
    const after = (await (await healthHandler(store)()).json()) as { outbox: { oldestPendingSeconds: number } }
    expect(after.outbox.oldestPendingSeconds).toBeGreaterThanOrEqual(3 * 60 - 1)
    expect(after.outbox.oldestPendingSeconds).toBeLessThan(3 * 60 + 10)

    const health = await readDeliveryHealth(store, new Date())
    expect(health).toMatchObject({ pending: 2, failed: 0 })
    expect(String(await deliveryHealthSection(health))).toContain(
      '2 messages wait to be sent; the oldest has waited 3 minutes.',
    )
  })

  it('says nothing waits when the outbox is empty', async () => {
    const body = (await (await healthHandler(store)()).json()) as { outbox: Record<string, number> }
    expect(body.outbox).toEqual({ pending: 0, failed: 0, oldestPendingSeconds: 0 })
    const section = String(await deliveryHealthSection(await readDeliveryHealth(store, new Date())))
    expect(section).toContain('No message waits to be sent. Every e-mail has gone out.')
    expect(section).not.toContain('lp-notice-error')
  })

  it('puts claimed messages off without counting an attempt, frees their claims, keeps the last error', async () => {
    await queue(minutesAgo(2))
    await queue(minutesAgo(1))
    const now = new Date()
    const claimed = await store.claimDueMail(now, 10, 60_000)
    expect(claimed).toHaveLength(2)
    const later = new Date(now.getTime() + 5_000)
    await store.postponeMail([claimed[0]!.id], later, 'SMTP 421: slow down')
    await store.postponeMail([claimed[1]!.id], later)
    // Not due before the slow-down ends; due at its end, claim freed, attempts unchanged.
    expect(await store.claimDueMail(new Date(later.getTime() - 1), 10, 60_000)).toEqual([])
    const again = await store.claimDueMail(later, 10, 60_000)
    expect(again.map((job) => job.attempts)).toEqual([0, 0])
    const messages = await store.listMessages({ limit: 10 })
    expect(messages.map((m) => [m.attempts, m.lastError])).toEqual([
      [0, 'SMTP 421: slow down'],
      [0, null],
    ])
  })

  it('has the index that keeps the count and the oldest quick', async () => {
    const sql =
      backend.kind === 'postgres'
        ? "SELECT 1 FROM pg_indexes WHERE indexname = 'outbox_pending_since' AND indexdef LIKE '%WHERE%pending%'"
        : "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'outbox_pending_since' AND sql LIKE '%pending%'"
    if (backend.kind === 'postgres') {
      expect((await backend.postgres().db.query(sql)).rows).toHaveLength(1)
      return
    }
    const db = new Database(backend.file(), { readonly: true })
    try {
      expect(db.prepare(sql).all()).toHaveLength(1)
    } finally {
      db.close()
    }
  })
})

describe('the words', () => {
  it('tell a wait as a person would', () => {
    expect(waitInWords(20)).toBe('less than a minute')
    expect(waitInWords(61)).toBe('1 minute')
    expect(waitInWords(3 * 3600)).toBe('3 hours')
    expect(waitInWords(3 * 86_400)).toBe('3 days')
    expect(backlogInWords(1240, 180)).toBe('1,240 messages wait to be sent; the oldest has waited 3 minutes.')
  })

  it('warn on the dashboard when mail is behind, and the alert says how many wait', async () => {
    const section = String(await deliveryHealthSection({ pending: 5000, oldestSeconds: 20 * 60, failed: 1 }))
    expect(section).toContain('lp-notice-error')
    expect(section).toContain('the e-mail is falling behind')
    expect(section).toContain('1 message could not be sent')
    const alert = messageFailedAlert({ id: 7, kind: 'reply', leadId: 3, attempts: 9 }, 'SMTP 450', {
      pending: 5000,
      oldestSeconds: 20 * 60,
    })
    expect(alert.text).toContain('Waiting: 5,000 messages wait to be sent; the oldest has waited 20 minutes.')
  })
})
