import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresStore } from '../../src/server/store/postgres/postgres-store.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { LeadStore, OutgoingMail } from '../../src/server/store/store.ts'
import { defaultLaunch } from './support/fixtures.ts'
import { startTestPostgres, type TestPostgres } from './support/postgres.ts'

// Issue 42, item 11: the one-a-day limit on a launch's announcements was checked before the save, so two editors
// sending at the same second both passed and the list got two. Now the save checks it in its own transaction (SQLite's
// immediate transaction; PostgreSQL's announcement_gates row, one statement), and a studio account's mail (item 6) is
// an outbox message of no lead, kind 'account'.

const day = 24 * 3_600_000
const mail = (to: string): OutgoingMail => ({
  to,
  subject: 'Your reset link',
  text: 'Choose a new password: http://localhost/studio/invite/x',
  html: '',
  messageId: `<studio-${to}@localhost>`,
  idempotencyKey: `studio-${to}`,
})

/** Ten senders of one launch at once, each with its own key, all held to the limit. */
async function sendTogether(store: LeadStore, now: Date) {
  const quietSince = new Date(now.getTime() - day).toISOString()
  return Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      store.saveAnnouncement(
        {
          key: crypto.randomUUID(),
          launch: defaultLaunch,
          subject: `News ${i}`,
          text: 'The model home opens on Saturday.',
          author: `editor${i}@example.com`,
          createdAt: now.toISOString(),
        },
        [],
        quietSince,
      ),
    ),
  )
}

async function checkStore(store: LeadStore) {
  const now = new Date('2026-11-20T15:00:00Z')
  const saved = await sendTogether(store, now)
  expect(saved.filter(Boolean)).toHaveLength(1)
  expect(await store.listAnnouncements(undefined)).toHaveLength(1)
  // An hour later, still within the day: refused.
  expect(await sendTogether(store, new Date(now.getTime() + 3_600_000))).toEqual(Array(10).fill(undefined))
  // An owner's confirmed second (no limit given) goes; a day after the last, one more goes again.
  const confirmed = await store.saveAnnouncement(
    {
      key: crypto.randomUUID(),
      launch: defaultLaunch,
      subject: 'Second',
      text: 'x',
      author: 'o',
      createdAt: now.toISOString(),
    },
    [],
  )
  expect(confirmed?.subject).toBe('Second')
  const nextDay = await sendTogether(store, new Date(now.getTime() + day + 60_000))
  expect(nextDay.filter(Boolean)).toHaveLength(1)
  expect(await store.listAnnouncements(undefined)).toHaveLength(3)

  await store.queueAccountMail(mail('owner@example.com'), now)
  const [job] = await store.claimDueMail(now, 10, 60_000)
  expect(job).toMatchObject({ kind: 'account', leadId: null, withdrawn: false })
  expect(job && 'mail' in job ? job.mail.to : undefined).toBe('owner@example.com')
}

describe('the daily limit on announcements, checked where they are stored', () => {
  let root: string
  let pg: TestPostgres
  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'vip-announce-race-'))
    pg = await startTestPostgres()
  })
  afterAll(async () => {
    await pg?.stop()
    rmSync(root, { recursive: true, force: true })
  })

  it('lets one of ten senders at once through on SQLite', async () => {
    const store = openSqliteStore(path.join(root, 'leads.sqlite'), { defaultLaunch })
    try {
      await checkStore(store)
    } finally {
      await store.close()
    }
  })

  it('lets one of ten senders at once through on PostgreSQL (ten connections)', async () => {
    await pg.reset()
    await checkStore(createPostgresStore(pg.db, { defaultLaunch }))
  })
})
