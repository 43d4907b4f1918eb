import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { privacyPageOf } from '../../schema/privacy.ts'
import { buildSite } from '../../src/cli/build.ts'
import { escapeHtml } from '../../src/server/delivery/escape-html.ts'
import { readBuildSettings } from '../../src/server/env.ts'
import { copySecondLaunch, replaceOnce } from '../fixtures/second-launch.ts'

// What the law asks of every page (Ontario's TRESA/RECO advertising rules; PIPEDA): the brokerage's registered name
// and the link to the privacy page on every prerendered page, checked on what the build writes.

const out = mkdtempSync(path.join(tmpdir(), 'legal-pages-'))
const settings = readBuildSettings({})
const second = copySecondLaunch((text) => replaceOnce(text, '"© 2026 Lakeside', '"© 2019 Lakeside'))
const launches = [
  { name: 'default', file: path.resolve('page.config.json') },
  { name: 'second', file: second.file },
]
const config = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as PageConfig
const pagesOf = (name: string) =>
  new Map(
    readdirSync(path.join(out, name))
      .filter((file) => file.endsWith('.html'))
      .map((file) => [file, readFileSync(path.join(out, name, file), 'utf8')]),
  )

beforeAll(async () => {
  for (const launch of launches) await buildSite(launch.file, path.join(out, launch.name), settings)
}, 300_000)

afterAll(() => {
  rmSync(out, { recursive: true, force: true })
  rmSync(second.dir, { recursive: true, force: true })
})

describe('every prerendered page of every launch', () => {
  it('is one of the five kinds, the privacy page among them', () => {
    for (const launch of launches) {
      expect([...pagesOf(launch.name).keys()].sort()).toEqual([
        '404.html',
        'check-details.html',
        'index.html',
        'privacy.html',
        'registered.html',
      ])
    }
  })

  it("shows the brokerage's registered name and links the privacy page in its footer", () => {
    for (const launch of launches) {
      const { site, privacy } = config(launch.file)
      for (const [file, html] of pagesOf(launch.name)) {
        const footer = /<footer[^]*<\/footer>/.exec(html)?.[0] ?? ''
        expect(footer, `${launch.name}/${file}`).toContain(escapeHtml(site.brokerage))
        expect(footer, `${launch.name}/${file}`).toMatch(
          new RegExp(`<a href="/privacy"[^>]*>${privacy?.linkLabel ?? '-'}</a>`),
        )
      }
    }
  })

  it('dates the copyright with the build year unless the config fixes it', () => {
    const year = new Date().getFullYear()
    expect(pagesOf('default').get('index.html')).toContain(
      `© ${year} Harbourline Realty Inc., Brokerage. All rights reserved.`,
    )
    expect(pagesOf('default').get('index.html')).not.toContain('{year}')
    expect(pagesOf('second').get('privacy.html')).toContain('© 2019 Lakeside Realty Group Inc., Brokerage.')
  })
})

describe('the privacy page', () => {
  it("says who collects, what (the form's labels), why, how long and how to withdraw, from the config", () => {
    const html = pagesOf('second').get('privacy.html')!
    const { site } = config(second.file)
    expect(html).toContain('<title>Your privacy at Willowmere Commons | Willowmere Commons</title>')
    expect(html).toContain('<link rel="canonical" href="https://willowmere.example.org/privacy" />')
    expect(html).not.toContain('noindex')
    expect(html).toContain(
      '<h1 class="font-serif text-4xl font-semibold text-forest-900 sm:text-5xl">Your privacy at Willowmere Commons</h1>',
    )
    expect(html).toContain(
      `${escapeHtml(site.brokerage)} collects the registrations made on this page for Willowmere Commons.`,
    )
    for (const label of [
      'Your name',
      'Phone number',
      'E-mail address',
      'Postal code (optional)',
      'Are you a real estate agent?',
      'Brokerage name',
    ]) {
      expect(html).toContain(`<li>${escapeHtml(label)}</li>`)
    }
    expect(html).toContain('We keep your registration for 730 days (about 2 years) after you send it.')
    expect(html).toContain('href="mailto:privacy@example.org"')
    expect(html).toContain('with the unsubscribe link in each of our e-mails')
  })

  it('says that visits are counted, and how, while the launch counts them; not when launch.countVisits is false', () => {
    const html = pagesOf('second').get('privacy.html')!
    expect(html).toContain('>Counting visits</h2>')
    expect(html).toContain('No cookie is set and nothing is added to your browser.')
    const off = config(second.file)
    off.launch.countVisits = false
    expect(privacyPageOf(off).sections.map((section) => section.id)).toEqual([
      'who',
      'what',
      'why',
      'how-long',
      'choices',
    ])
    expect(privacyPageOf(config(second.file)).sections.map((section) => section.id)).toEqual([
      'who',
      'what',
      'why',
      'how-long',
      'visits',
      'choices',
    ])
  })

  it("keeps the config's own words where it gives them", () => {
    const html = pagesOf('default').get('privacy.html')!
    expect(html).toContain(escapeHtml(config('page.config.json').privacy?.why ?? '-'))
  })
})
