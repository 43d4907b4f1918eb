import { describe, expect, it } from 'vitest'
import { functionDocumentsOf } from '../../schema/documents.ts'
import { composeAnnouncement } from '../../src/server/delivery/announcement.ts'
import { createDocumentRoutes, type DocumentLaunch } from '../../src/server/delivery/document-routes.ts'
import { escapeHtml } from '../../src/server/delivery/escape-html.ts'
import { createUnsubscribeRoutes } from '../../src/server/delivery/unsubscribe.ts'
import type { LeadStore } from '../../src/server/store/store.ts'
import { readPageConfig } from './support/fixtures.ts'

// String.prototype.replace expands $` $' $& in a replacement string: a site name holding them used to paste the rest
// of the text around {site} into the unsubscribe page, the document-link page and every announcement. Each place that
// fills {site} must give the name exactly as written.

const siteName = "Bramble$`wood$'Cross$&ing"
const page = readPageConfig()
const reply = page.reply!
const quiet = { info() {}, error() {} }
const unusedStore = {} as LeadStore

describe('the {site} of a name with $ patterns', () => {
  it('is the name as written on the unsubscribe page', async () => {
    const texts = {
      ...reply.unsubscribe,
      pageTitle: 'Leave {site}',
      heading: 'About {site}',
      invalidText: 'Not {site}.',
    }
    const routes = createUnsubscribeRoutes(['/f'], {
      store: unusedStore,
      secrets: ['unsubscribe-secret-0123456789'],
      textsFor: () => Promise.resolve({ texts, siteName, lang: 'en' }),
      clock: () => new Date(),
      log: quiet,
    })
    const html = await (await routes.request('/f/unsubscribe')).text()
    expect(html).toContain(`<title>Leave ${escapeHtml(siteName)}</title>`)
    expect(html).toContain(`About ${escapeHtml(siteName)}</h1>`)
    expect(html).toContain(`Not ${escapeHtml(siteName)}.</p>`)
  })

  it('is the name as written on the document-link page', async () => {
    const documents = functionDocumentsOf({ list: [{ title: 'Price list', file: 'documents/price-list.pdf' }] })
    const texts = { ...documents.texts, pageTitle: 'Files of {site}', heading: 'Files of {site}' }
    const launch: DocumentLaunch = { slug: 'x', siteName, lang: 'en', documents: { ...documents, texts } }
    const routes = createDocumentRoutes(['/f'], {
      store: unusedStore,
      secrets: ['document-secret-0123456789'],
      launchOf: () => launch,
      fallback: launch,
      readFile: () => Promise.resolve(undefined),
      freshReply: () => Promise.resolve(undefined),
      webhook: false,
      overLimit: () => Promise.resolve(false),
      clock: () => new Date(),
      newId: () => crypto.randomUUID(),
      log: quiet,
    })
    const html = await (await routes.request('/f/documents/price-list')).text()
    expect(html).toContain(`<title>Files of ${escapeHtml(siteName)}</title>`)
    expect(html).toContain(`Files of ${escapeHtml(siteName)}</h1>`)
  })

  it("is the name as written in an announcement's unsubscribe notice", async () => {
    const mail = await composeAnnouncement(
      { subject: 'News', text: 'Doors open.' },
      'news',
      { testTo: 'ada@example.com' },
      {
        reply: { ...reply, unsubscribe: { ...reply.unsubscribe, notice: 'You registered on {site}; stop here:' } },
        links: { secret: 'unsubscribe-secret-0123456789', baseUrl: 'https://example.com/f' },
        siteName,
        brokerage: page.site.brokerage,
        siteEmail: page.site.email,
        privacy: { url: 'https://example.com/privacy', label: 'Privacy' },
      },
    )
    expect(mail?.text).toContain(`You registered on ${siteName}; stop here:`)
  })
})
