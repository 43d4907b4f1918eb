import { readFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type {
  LaunchDetail,
  PublishResponse,
  SaveDraftResponse,
  StudioError,
  VersionDetail,
  VersionSummary,
} from '../../src/studio/protocol.ts'
import {
  originalText,
  personWithPassword,
  signIn,
  startStudioHarness,
  type StudioHarness,
} from './support/studio-harness.ts'

const slug = 'bramblewood-crossing'
const password = 'correct horse battery staple'
let h: StudioHarness

beforeEach(async () => {
  h = await startStudioHarness()
})
afterEach(() => h.close())

describe('the studio, from the first invitation to a restored version', () => {
  it('is off (404) until an account exists', async () => {
    for (const pathname of ['/studio/', '/studio/sign-in', '/studio/api/me', '/studio/assets/app-abc123.js']) {
      expect((await h.client().request(pathname)).status, pathname).toBe(404)
    }
  })

  it('invites, sets a password, signs in, saves a draft, publishes, lists versions and restores the first byte for byte', async () => {
    const link = await h.invite('owner@example.com', 'owner')
    expect(link).toMatch(/^\/studio\/invite\/[A-Za-z0-9_-]{43}$/)
    const browser = h.client()
    const page = await browser.request(link)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('owner@example.com')
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'")
    expect(page.headers.get('content-security-policy')).not.toContain('unsafe')

    const short = await browser.form(link, { password: 'too short', confirm: 'too short' })
    expect(short.status).toBe(400)
    expect(await short.text()).toContain('at least 12 characters')
    const set = await browser.form(link, { password, confirm: password })
    expect(set.status).toBe(303)
    expect(set.headers.get('location')).toBe('/studio/')
    const cookie = set.headers.getSetCookie().find((line) => line.startsWith('studio_session='))!
    expect(cookie).toMatch(/HttpOnly/)
    expect(cookie).toMatch(/SameSite=Strict/)
    // Path /: the leads page at /leads reads the same session (the studio's accounts see it without a second password).
    expect(cookie).toMatch(/; Path=\/(;|$)/)
    // The link works once.
    expect((await h.client().request(link)).status).toBe(404)
    expect((await h.client().form(link, { password, confirm: password })).status).toBe(404)

    // Signing in with the form, as a person does.
    const signInPage = await h.client().request('/studio/sign-in')
    const html = await signInPage.text()
    expect(html).toMatch(/<label for="email">Email<\/label>/)
    expect(html).toMatch(/<label for="password">Password<\/label>/)
    expect(html).toContain('<button type="submit">Sign in</button>')
    const person = h.client()
    expect((await signIn(person, 'Owner@Example.com', password)).status).toBe(303)
    expect(await (await person.request('/studio/api/me')).json()).toEqual({
      email: 'owner@example.com',
      role: 'owner',
      totp: false,
    })
    expect((await person.request('/studio/')).status).toBe(200)
    expect((await person.request('/studio/launches/bramblewood-crossing')).status).toBe(200)

    const detail = (await (await person.request(`/studio/api/launches/${slug}`)).json()) as LaunchDetail
    expect(detail).toMatchObject({ slug, status: 'live', liveVersion: 1, changedOnDisk: false, problems: [] })
    expect(detail.liveText).toBe(originalText)

    const edited = originalText.replace(
      '"heading": "Bramblewood Crossing"',
      '"heading": "Bramblewood Crossing, now selling"',
    )
    const saved = (await (
      await person.json(`/studio/api/launches/${slug}/draft`, 'PUT', { text: edited })
    ).json()) as SaveDraftResponse
    expect(saved.problems).toEqual([])
    // A draft never touches the file.
    expect(readFileSync(h.configFile, 'utf8')).toBe(originalText)
    const listed = await (await person.request('/studio/api/launches')).json()
    expect(listed).toMatchObject([{ slug, draft: { by: 'owner@example.com' } }])

    const published = await person.json(`/studio/api/launches/${slug}/publish`, 'POST', { message: 'New heading' })
    expect(published.status).toBe(200)
    expect(((await published.json()) as PublishResponse).version).toBe(2)
    expect(readFileSync(h.configFile, 'utf8')).toBe(edited)
    expect(
      ((await (await person.request(`/studio/api/launches/${slug}`)).json()) as LaunchDetail).draftText,
    ).toBeUndefined()

    const versions = (await (await person.request(`/studio/api/launches/${slug}/versions`)).json()) as VersionSummary[]
    expect(versions).toEqual([
      { version: 2, at: h.now.toISOString(), by: 'owner@example.com', message: 'New heading', fromDisk: false },
      { version: 1, at: h.now.toISOString(), by: 'disk', fromDisk: true },
    ])
    const second = (await (await person.request(`/studio/api/launches/${slug}/versions/2`)).json()) as VersionDetail
    expect(second.text).toBe(edited)
    expect(second.diff).toContain('-      "heading": "Bramblewood Crossing",')
    expect(second.diff).toContain('+      "heading": "Bramblewood Crossing, now selling",')

    const restored = await person.json(`/studio/api/launches/${slug}/versions/1/restore`, 'POST', {})
    expect(restored.status).toBe(200)
    expect(((await restored.json()) as PublishResponse).version).toBe(3)
    expect(readFileSync(h.configFile)).toEqual(Buffer.from(originalText))
    const third = (await (await person.request(`/studio/api/launches/${slug}/versions/3`)).json()) as VersionDetail
    expect(third).toMatchObject({ restoredFrom: 1, text: originalText, by: 'owner@example.com' })

    const audit = (await (await person.request('/studio/api/audit')).json()) as Array<{ action: string }>
    expect(audit.map((entry) => entry.action)).toEqual(
      expect.arrayContaining(['accepted invitation', 'sign-in', 'save draft', 'publish', 'restore']),
    )
  })

  it('saves a draft with a problem, and refuses to publish it, saying why, with nothing changed', async () => {
    const person = await personWithPassword(h, 'editor@example.com', 'editor', password)
    const broken = originalText.replace('"type": "hero"', '"type": "hero2"')
    const saved = (await (
      await person.json(`/studio/api/launches/${slug}/draft`, 'PUT', { text: broken })
    ).json()) as SaveDraftResponse
    expect(saved.problems.length).toBeGreaterThan(0)
    const refused = await person.json(`/studio/api/launches/${slug}/publish`, 'POST', {})
    expect(refused.status).toBe(422)
    const body = (await refused.json()) as StudioError
    expect(body.error).toContain('nothing was published')
    expect(body.problems![0]).toMatchObject({ message: saved.problems[0]!.message, line: saved.problems[0]!.line })
    expect(body.problems![0]!.message).toContain('hero2')
    expect(readFileSync(h.configFile, 'utf8')).toBe(originalText)
    expect(await h.store.listVersions(slug)).toHaveLength(1)
    // The draft is kept: work is never lost.
    expect((await h.store.getDraft(slug))?.text).toBe(broken)
  })
})
