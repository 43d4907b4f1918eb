import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Hono } from 'hono'
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { functionDocumentsOf } from '../../schema/documents.ts'
import { localAnonKey } from '../../schema/local-defaults.ts'
import type { PageConfig } from '../../schema/page-config.ts'
import { createApp } from '../../src/server/app.ts'
import { sendFreshLinks, type DocumentRouteDeps } from '../../src/server/delivery/document-answers.ts'
import { unpublishedAnswer } from '../../src/server/site/unpublished-page.ts'
import { openSqliteStore, type SqliteLeadStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import type { StoredLead } from '../../src/server/store/store.ts'
import { launchSite, readPageConfig } from './support/fixtures.ts'

// Issue 47, item 8: every word of the server's own pages is the launch's (a launch in another voice changes them all);
// without the new texts, today's words exactly.
const shipped = readPageConfig()
const origin = 'https://bramblewood.example.com'
const fnPath = '/functions/v1/send-contact-email'
const quiet = { info() {}, error() {} }
const dir = mkdtempSync(path.join(tmpdir(), 'vip-page-texts-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The shipped config in another voice: every new text set. */
function inAnotherVoice(): PageConfig {
  const config = structuredClone(shipped)
  config.form.noScript = {
    ...config.form.noScript,
    answerBackLabel: 'Home, then',
    tooManyText: 'Whoa, slow down: one minute, please.',
    notSavedText: 'We dropped that one. Have another go shortly.',
    failedText: 'Our end hiccupped. Have another go shortly.',
  }
  config.documents!.texts = { tooManyText: 'Whoa there: one minute, please.', failedText: 'The fresh links got stuck.' }
  config.site.unpublished = { title: '{site} – coming soon', text: 'Nearly ready: pop back soon.' }
  return config
}

let store: SqliteLeadStore
beforeEach(() => {
  store = openSqliteStore(path.join(dir, `${crypto.randomUUID()}.sqlite`), { defaultLaunch: shipped.launch.slug })
  return () => store.close()
})

function postForm(app: Hono) {
  return app.request(`http://bramblewood.example.com${fnPath}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin, referer: `${origin}/` },
    body: new URLSearchParams({ name: 'Ann', email: 'ann@example.com', phone: '555-555-0100', isRealtor: 'no' }),
  })
}

function appOf(config: PageConfig, brokenStore = false) {
  const failing = new Proxy(store, {
    get: (target, key, receiver) =>
      key === 'saveLead'
        ? () => Promise.reject(new Error('disk full'))
        : (Reflect.get(target, key, receiver) as unknown),
  })
  return createApp({
    launches: [launchSite(config)],
    defaultLaunch: config.launch.slug,
    store: brokenStore ? failing : store,
    anonKeys: [localAnonKey],
    rateLimitPerMinute: 1,
    log: quiet,
  })
}

describe("the form post's notes", () => {
  it.each([
    [
      'today’s words without the new texts',
      shipped,
      ['Too many registrations from this address. Please wait a minute and try again.', 'Back'],
    ],
    ['the launch’s own words', inAnotherVoice(), ['Whoa, slow down: one minute, please.', 'Home, then']],
  ] as const)('too many registrations: %s', async (_name, config, [text, back]) => {
    const app = appOf(config)
    expect((await postForm(app)).status).toBe(303)
    const refused = await postForm(app)
    expect(refused.status).toBe(429)
    const page = await refused.text()
    expect(page).toContain(`<p>${text.replaceAll("'", '&#39;')}</p>`)
    expect(page).toContain(`<a href="${origin}/">${back}</a>`)
  })

  it.each([
    ['today’s words', shipped, 'Your registration could not be saved. Please try again in a moment.'],
    ['the launch’s own words', inAnotherVoice(), 'We dropped that one. Have another go shortly.'],
  ] as const)('a registration that could not be stored: %s', async (_name, config, text) => {
    const refused = await postForm(appOf(config, true))
    expect(refused.status).toBe(500)
    expect(await refused.text()).toContain(`<p>${text}</p>`)
  })
})

describe('the fresh-document-link page', () => {
  const lead = { id: 1, launch: shipped.launch.slug, suspectedSpam: false } as StoredLead
  async function answer(config: PageConfig, overLimit: boolean): Promise<{ status: number; text: string }> {
    const launch = {
      slug: config.launch.slug,
      siteName: config.site.name,
      lang: config.site.lang,
      documents: functionDocumentsOf(config.documents!),
    }
    const deps = {
      store: { queueDocumentsReply: () => Promise.reject(new Error('disk full')) },
      overLimit: () => Promise.resolve(overLimit),
      freshReply: () => Promise.resolve({}),
      log: quiet,
    } as unknown as DocumentRouteDeps
    const app = new Hono().post('/link', (c) => sendFreshLinks(c, deps, lead, launch, new Date()))
    const res = await app.request('/link', { method: 'POST' })
    return { status: res.status, text: await res.text() }
  }

  it('answers too many requests and a failure in today’s words, or in the launch’s', async () => {
    expect(await answer(shipped, true)).toMatchObject({ status: 429 })
    expect((await answer(shipped, true)).text).toContain(
      'Too many requests from this address. Please wait a minute and try again.',
    )
    expect((await answer(shipped, false)).text).toContain(
      'Fresh links could not be sent just now. Please try again in a moment.',
    )
    const voiced = inAnotherVoice()
    expect((await answer(voiced, true)).text).toContain('Whoa there: one minute, please.')
    const failed = await answer(voiced, false)
    expect(failed.status).toBe(500)
    expect(failed.text).toContain('The fresh links got stuck.')
    expect(failed.text).not.toContain('could not be sent just now')
  })
})

describe('the "not published yet" page', () => {
  it('says today’s words without texts, and the launch’s (with {site}, escaped) with them', async () => {
    const today = await unpublishedAnswer('Cedar & Pine', 'GET').text()
    expect(today).toContain('<title>Cedar &amp; Pine: not published yet</title>')
    expect(today).toContain('<p>This site is not published yet. Please come back soon.</p>')
    const voiced = await unpublishedAnswer('Cedar & Pine', 'GET', inAnotherVoice().site.unpublished).text()
    expect(voiced).toContain('<title>Cedar &amp; Pine – coming soon</title>')
    expect(voiced).toContain('<p>Nearly ready: pop back soon.</p>')
  })
})
