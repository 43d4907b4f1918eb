import { afterEach, beforeAll, afterAll, beforeEach, describe, expect, it } from 'vitest'
import path from 'node:path'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { createApp } from '../../src/server/app.ts'
import { createOutboxWorker, type OutboxWorker } from '../../src/server/delivery/outbox.ts'
import { createSmtpMailer } from '../../src/server/delivery/mailers/smtp-mailer.ts'
import { createDocumentFiles } from '../../src/server/site/document-files.ts'
import type { LeadStore } from '../../src/server/store/store.ts'
import { addressKeyOf } from '../../src/server/store/suppression.ts'
import { leadStoreBackends } from './support/backends.ts'
import { launchSite, readPageConfig, registration } from './support/fixtures.ts'
import { startTestSmtp, type TestSmtp } from './support/smtp.ts'

// Issue 42 item 4: a "fresh document link" e-mail reached an address that had unsubscribed and been erased. The
// expired-link page queued fresh links for any well-formed lead id, signature or not, and the outbox checked only the
// lead's own withdrawal. Attacked here through the app, a real store and a real SMTP server on 127.0.0.1.

const root = path.resolve(import.meta.dirname, '../..')
const page = readPageConfig()
const base = 'https://bramblewood.example.com/functions/v1/send-contact-email'
const suppressionSecret = 'suppression-secret-0123456789'
const keyOf = (email: string) => addressKeyOf(suppressionSecret, email)
const quiet = { info() {}, error() {} }

describe.each(leadStoreBackends())('mail to an address that said no', (backend) => {
  let store: LeadStore
  let smtp: TestSmtp
  let worker: OutboxWorker
  let app: ReturnType<typeof createApp>
  let now: Date
  let close: () => Promise<void>
  beforeAll(() => backend.setup(), 60_000)
  afterAll(() => backend.teardown())
  beforeEach(async () => {
    store = await backend.fresh()
    smtp = await startTestSmtp()
    now = new Date('2026-03-02T15:00:00.000Z')
    const clock = () => now
    const mailer = createSmtpMailer({ url: `smtp://127.0.0.1:${smtp.port}`, from: 'no-reply@example.com' })
    worker = createOutboxWorker({ store, mailer, clock, log: quiet, suppressionKeyOf: keyOf })
    app = createApp({
      launches: [
        launchSite(page, {
          notifyEmail: 'sales@example.com',
          links: { secret: 'unsubscribe-secret-0123456789', baseUrl: base },
        }),
      ],
      defaultLaunch: page.launch.slug,
      store,
      clock,
      anonKeys: [localAnonKey],
      rateLimitPerMinute: 0,
      log: quiet,
      suppressionKeyOf: keyOf,
      documentFiles: createDocumentFiles((slug) =>
        slug === page.launch.slug ? path.join(root, 'page.config.json') : undefined,
      ),
    })
    close = async () => {
      await worker.stop()
      await mailer.close?.()
      await smtp.stop()
      await store.close()
    }
  })
  afterEach(() => close())

  /** Registers `email` (with `submissionId` when given) and delivers the outbox; the submission id. */
  async function register(email: string, submissionId?: string): Promise<string> {
    const body = registration({ email, ...(submissionId ? { submissionId } : {}) })
    const res = await app.request('/functions/v1/send-contact-email', {
      method: 'POST',
      headers: { apikey: localAnonKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    expect(res.status).toBe(200)
    await worker.deliverDue()
    return String(body.submissionId)
  }

  const mailTo = (email: string) => smtp.received.filter((m) => m.rcptTo[0] === email)

  describe(backend.name, () => {
    it("sends no fresh links when a forged document link's button is pressed", async () => {
      const id = await register('bea@example.com')
      expect(mailTo('bea@example.com')).toHaveLength(1)
      // A link for the lead's id made without the secret: what anyone who knows (or chose) a submission id can write.
      const forged = `/functions/v1/send-contact-email/documents/price-list?id=${id}&exp=1700000000&sig=${'A'.repeat(43)}`
      now = new Date(now.getTime() + 31 * 86_400_000)
      const pressed = await app.request(forged, { method: 'POST' })
      expect(pressed.status).toBe(403)
      expect(await pressed.text()).not.toContain('<form method="post"')
      const lead = (await store.findLead(id))!
      expect((await store.listMessages({ leadId: lead.id, limit: 50 })).filter((m) => m.kind === 'reply')).toHaveLength(
        1,
      )
      await worker.deliverDue()
      expect(mailTo('bea@example.com')).toHaveLength(1)
    })

    it('sends no fresh links to an address that unsubscribed, was erased and was registered again', async () => {
      const first = await register('cy@example.com')
      expect(mailTo('cy@example.com')).toHaveLength(1)
      await store.withdrawLead(first, now)
      const erased = await store.eraseLeads({ email: 'cy@example.com' }, keyOf)
      expect(erased.suppressed).toBe(1)
      // Someone registers the address again, with a submission id of their choosing.
      const chosen = '0badc0de-0000-4000-8000-000000000001'
      await register('cy@example.com', chosen)
      const lead = (await store.findLead(chosen))!
      // However a fresh-link e-mail came to be queued for the new lead, the outbox checks the address as it goes.
      const mail = {
        to: 'cy@example.com',
        subject: 'Your documents for Bramblewood Crossing',
        text: 'Here are fresh links to your documents.',
        html: '<p>Here are fresh links to your documents.</p>',
        messageId: `<${chosen}.documents-1@example.com>`,
        idempotencyKey: `${chosen}.documents.1`,
      }
      expect(await store.queueDocumentsReply(lead.id, mail, now, new Date(now.getTime() - 600_000))).toBe(true)
      await worker.deliverDue()
      expect(mailTo('cy@example.com')).toHaveLength(1)
      const replies = (await store.listMessages({ leadId: lead.id, limit: 50 })).filter((m) => m.kind === 'reply')
      expect(replies.map((m) => m.status)).toEqual(['cancelled'])
      // The team is still told of the registration.
      expect(mailTo('sales@example.com')).toHaveLength(2)
    })
  })
})
