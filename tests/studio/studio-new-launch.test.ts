import type { PageConfig } from '../../schema/page-config.ts'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { checkPageConfigText } from '../../src/config/check-page-config.ts'
import {
  originalText,
  personWithPassword,
  startStudioHarness,
  type StudioClient,
  type StudioHarness,
} from './support/studio-harness.ts'

// POST /studio/api/launches against the real studio (createStudio) on a temporary project: who may start a launch,
// what the copy holds (nothing of the old development), what is refused and that a refusal leaves nothing behind.

const source = 'bramblewood-crossing'
const password = 'correct horse battery staple'
const old = JSON.parse(originalText) as {
  site: { name: string; phone: { display: string; dial: string }; email: string }
  seo: { canonicalUrl: string }
  launch: { realtorEmail?: string }
}
const request = {
  from: source,
  name: 'Maple Ridge',
  phone: '(555) 555-0199',
  email: 'maple@example.org',
  address: 'Maple Line & Concession Road 4, Alderbrook, ON',
  domain: 'mapleridge.example.org',
  notifyEmail: 'leads@example.org',
  replyFrom: 'hello@example.org',
}
let h: StudioHarness

beforeEach(async () => {
  h = await startStudioHarness()
})
afterEach(() => h.close())

const launchDir = (slug: string) => path.join(h.dir, 'launches', slug)

/** What is in the project folder and the audit log: a refusal must change neither. */
async function state() {
  return {
    folders: readdirSync(h.dir).sort(),
    launches: existsSync(path.join(h.dir, 'launches')) ? readdirSync(path.join(h.dir, 'launches')) : [],
    audit: (await h.store.listAudit(1000)).filter((entry) => entry.action === 'new launch').length,
  }
}

async function post(client: StudioClient, body: unknown) {
  const response = await client.json('/studio/api/launches', 'POST', body)
  return {
    status: response.status,
    body: (await response.json()) as {
      slug?: string
      siteName?: string
      error?: string
      fields?: Record<string, string>
      problems?: unknown[]
    },
  }
}

describe('New launch (POST /studio/api/launches)', () => {
  it('copies the launch with the new development written in and nothing of the old one left, listed unpublished', async () => {
    const owner = await personWithPassword(h, 'owner@example.com', 'owner', password)
    const made = await post(owner, request)
    expect(made.status, JSON.stringify(made.body)).toBe(201)
    expect(made.body).toMatchObject({ slug: 'maple-ridge', siteName: 'Maple Ridge' })

    const text = readFileSync(path.join(launchDir('maple-ridge'), 'page.config.json'), 'utf8')
    for (const gone of [
      old.site.name,
      old.site.email,
      old.launch.realtorEmail ?? 'coop@example.com',
      new URL(old.seo.canonicalUrl).host,
      old.site.phone.display,
      old.site.phone.dial,
      '555-0142',
      '555 0142',
    ]) {
      expect(text.toLowerCase(), `"${gone}" is left in the copy`).not.toContain(gone.toLowerCase())
    }
    expect(text.replace(/\D/g, ''), 'the old number is left in some form').not.toContain('5555550142')
    const config = JSON.parse(text) as PageConfig
    // The co-op desk of the old development is not carried over: the new team address until someone names its own.
    expect(config.launch).toEqual({
      slug: 'maple-ridge',
      notifyEmail: 'leads@example.org',
      realtorEmail: 'leads@example.org',
    })
    expect(config.site).toMatchObject({
      name: 'Maple Ridge',
      phone: { display: '(555) 555-0199', dial: '+15555550199' },
      email: 'maple@example.org',
      location: request.address,
    })
    expect(config.seo.canonicalUrl).toBe('https://mapleridge.example.org/')
    expect(config.seo.jsonLd).toMatchObject({
      telephone: '+15555550199',
      email: 'maple@example.org',
      url: 'https://mapleridge.example.org/',
      address: { streetAddress: request.address },
    })
    expect(config.reply?.sender.email).toBe('hello@example.org')
    expect(config.seo.title).toContain('Maple Ridge')
    // Copies keep their path on the new address.
    expect(config.reply?.realtor?.documents?.[0]?.url).toBe(
      'https://mapleridge.example.org/documents/broker-package.pdf',
    )
    // The documents the copy lists come with it (the next development replaces them).
    expect(readdirSync(path.join(launchDir('maple-ridge'), 'documents')).sort()).toEqual([
      'floor-plans.pdf',
      'price-list.pdf',
    ])
    // The real checker finds nothing to fix, with the images copied beside it.
    expect(
      checkPageConfigText(
        text,
        path.join(launchDir('maple-ridge'), 'page.config.json'),
        path.join(launchDir('maple-ridge'), 'public'),
      ),
    ).toEqual([])
    expect(readdirSync(path.join(launchDir('maple-ridge'), 'public', 'images')).sort()).toEqual(
      readdirSync(path.join(h.dir, 'public', 'images')).sort(),
    )
    // No temporary folder is left behind, and the source is as it was.
    expect(readdirSync(h.dir).filter((name) => name.startsWith('.new-launch'))).toEqual([])
    expect(readFileSync(h.configFile, 'utf8')).toBe(originalText)

    const listed = (await (await owner.request('/studio/api/launches')).json()) as Array<{
      slug: string
      status: string
      siteName: string
    }>
    expect(listed.find((launch) => launch.slug === 'maple-ridge')).toMatchObject({
      siteName: 'Maple Ridge',
      status: 'unpublished',
    })
    expect((await owner.request('/studio/api/launches/maple-ridge')).status).toBe(200)
    expect((await h.store.listAudit(10)).find((entry) => entry.action === 'new launch')).toMatchObject({
      who: 'owner@example.com',
      launch: 'maple-ridge',
      detail: `a copy of ${source}`,
    })

    // Publish opens it: its first version is the file as made.
    expect((await owner.json('/studio/api/launches/maple-ridge/publish', 'POST', { text })).status).toBe(200)
    const after = (await (await owner.request('/studio/api/launches')).json()) as Array<{
      slug: string
      status: string
    }>
    expect(after.find((launch) => launch.slug === 'maple-ridge')?.status).toBe('live')
  })

  it("refuses a name that exists, an unsafe short name and another launch's address at their fields, and makes nothing", async () => {
    const owner = await personWithPassword(h, 'owner@example.com', 'owner', password)
    expect((await post(owner, request)).status).toBe(201)
    const before = await state()

    const again = await post(owner, request)
    expect(again.status).toBe(400)
    expect(again.body.fields?.name).toBe('There is a launch named "maple-ridge" already: choose another short name.')
    const taken = await post(owner, { ...request, name: 'Another', slug: source })
    expect(taken.body.fields?.slug).toContain(`There is a launch named "${source}" already`)
    for (const slug of ['../escape', 'Upper', '-dash', 'a/b', '.hidden']) {
      const unsafe = await post(owner, { ...request, name: 'Another', slug })
      expect(unsafe.status, slug).toBe(400)
      expect(unsafe.body.fields?.slug, slug).toBe(
        'Use lower-case letters, digits and dashes, starting with a letter or digit (e.g. maple-ridge).',
      )
    }
    const clash = await post(owner, {
      ...request,
      name: 'Another',
      domain: `https://${new URL(old.seo.canonicalUrl).host}/`,
    })
    expect(clash.body.fields?.domain).toBe(
      `${new URL(old.seo.canonicalUrl).host} is the address of Bramblewood Crossing: give the new launch its own.`,
    )
    const wrong = await post(owner, {
      ...request,
      name: 'Another',
      phone: 'call us',
      email: 'not an address',
      domain: 'https://x.example.org/path',
      from: 'nope',
    })
    expect(Object.keys(wrong.body.fields ?? {}).sort()).toEqual(['domain', 'email', 'from', 'phone'])
    expect(wrong.body.error).toBe('Some fields need a change: see the message at each one.')
    expect(await state()).toEqual(before)
  })

  it('refuses a copy the checker finds a problem in, and leaves no folder', async () => {
    const owner = await personWithPassword(h, 'owner@example.com', 'owner', password)
    // The source names a picture that is not in its public/images: so would the copy.
    writeFileSync(h.configFile, originalText.replace('"/images/og-image.png"', '"/images/missing.png"'))
    const before = await state()
    const refused = await post(owner, request)
    expect(refused.status).toBe(422)
    expect(refused.body.error).toMatch(/^The copy has (a problem|\d+ problems), so no launch was made/)
    expect(JSON.stringify(refused.body.problems)).toContain('missing.png')
    expect(await state()).toEqual(before)
    expect(readdirSync(h.dir).filter((name) => name.startsWith('.new-launch'))).toEqual([])
  })

  it('lets an editor limited to some launches start one, which it then has; not from a launch it is not given', async () => {
    await personWithPassword(h, 'owner@example.com', 'owner', password)
    const editor = await personWithPassword(h, 'editor@example.com', 'editor', password, [source])
    expect((await post(editor, request)).status).toBe(201)
    expect((await h.store.findAccountByEmail('editor@example.com'))!.launches).toEqual([source, 'maple-ridge'])
    // Its session goes on (access only grew), and it sees the new launch.
    const listed = (await (await editor.request('/studio/api/launches')).json()) as Array<{ slug: string }>
    expect(listed.map((launch) => launch.slug)).toEqual([source, 'maple-ridge'])
    expect((await editor.json('/studio/api/launches/maple-ridge/draft', 'PUT', { text: 'draft' })).status).toBe(200)

    const other = await personWithPassword(h, 'other@example.com', 'editor', password, ['maple-ridge'], '192.0.2.77')
    const refused = await post(other, { ...request, name: 'Willow Bend', domain: 'willowbend.example.org' })
    expect(refused.status).toBe(400)
    expect(refused.body.fields).toEqual({ from: 'Choose the launch to copy from the list.' })
  })

  it('refuses a sales account (403) and a request without a session or from another origin, making nothing', async () => {
    await personWithPassword(h, 'owner@example.com', 'owner', password)
    const sales = await personWithPassword(h, 'sales@example.com', 'sales', password)
    const before = await state()
    expect((await post(sales, request)).status).toBe(403)
    expect((await h.client().json('/studio/api/launches', 'POST', request)).status).toBe(401)
    const owner = await personWithPassword(h, 'second-owner@example.com', 'owner', password, undefined, '192.0.2.78')
    expect((await owner.json('/studio/api/launches', 'POST', request, 'http://evil.localhost')).status).toBe(403)
    expect((await owner.json('/studio/api/launches', 'POST', request, null)).status).toBe(403)
    expect(await state()).toEqual(before)
  })
})
