import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createSmtpMailer } from '../../src/server/delivery/mailers/smtp-mailer.ts'
import { burstBreakMs, createOutboxWorker } from '../../src/server/delivery/outbox.ts'
import { watchBursts } from '../../src/server/delivery/sending/burst-watch.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { defaultLaunch, newLead, notificationFor } from './support/fixtures.ts'
import { startTestSmtp } from './support/smtp.ts'

const dir = mkdtempSync(path.join(tmpdir(), 'vip-burst-'))
const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('watchBursts (the registrations a second the delivery yields to)', () => {
  it('starts a burst at the threshold at once, and ends it once a second has gone under half of it', async () => {
    const heard: boolean[] = []
    const watch = watchBursts((on) => heard.push(on), 100)
    cleanups.push(() => watch.stop())
    for (let i = 0; i < 99; i++) watch.count()
    expect(watch.on()).toBe(false)
    watch.count()
    expect(watch.on()).toBe(true)
    expect(heard).toEqual([true])
    // Still 60 a second (over half the threshold): the burst goes on.
    for (let quarter = 0; quarter < 6; quarter++) {
      for (let i = 0; i < 15; i++) watch.count()
      await sleep(250)
    }
    expect(heard).toEqual([true])
    // Nothing stored any more: over within about a second and a quarter.
    await sleep(1_600)
    expect(watch.on()).toBe(false)
    expect(heard).toEqual([true, false])
  })

  it('never calls a slow trickle a burst', async () => {
    const heard: boolean[] = []
    const watch = watchBursts((on) => heard.push(on), 100)
    cleanups.push(() => watch.stop())
    for (let quarter = 0; quarter < 8; quarter++) {
      for (let i = 0; i < 20; i++) watch.count()
      await sleep(250)
    }
    expect(heard).toEqual([])
  })
})

describe('the outbox worker in a burst (real SQLite on disk, real SMTP on 127.0.0.1)', () => {
  it('sends a batch a break during a burst, and the rest at once when it ends; every message once', async () => {
    const smtp = await startTestSmtp()
    cleanups.push(() => smtp.stop())
    const store = openSqliteStore(path.join(dir, `${crypto.randomUUID()}.sqlite`), { defaultLaunch })
    cleanups.push(() => store.close())
    const mailer = createSmtpMailer({ url: `smtp://127.0.0.1:${smtp.port}`, from: 'no-reply@example.com' })
    cleanups.push(() => mailer.close?.())
    for (let i = 0; i < 30; i++) {
      const lead = newLead()
      await store.saveLead(lead, notificationFor(lead))
    }
    const worker = createOutboxWorker({ store, mailer, batchSize: 10, log: { info() {}, error() {} } })
    cleanups.push(() => worker.stop())
    worker.yieldToBurst(true)
    worker.start(60_000)
    await expect.poll(() => smtp.received.length).toBe(10)
    // Well inside the break: the next batch waits for it.
    await sleep(burstBreakMs / 2)
    expect(smtp.received.length).toBe(10)
    // After one break, one more batch.
    await expect.poll(() => smtp.received.length, { timeout: burstBreakMs * 3 }).toBe(20)
    worker.yieldToBurst(false)
    // The burst is over: the rest goes at once, not a break later.
    await expect.poll(() => smtp.received.length, { timeout: burstBreakMs / 2 }).toBe(30)
    expect(new Set(smtp.received.map((message) => message.headers.get('message-id')?.[0])).size).toBe(30)
    expect(await store.countMail()).toEqual({ pending: 0, sent: 30 })
  })
})
