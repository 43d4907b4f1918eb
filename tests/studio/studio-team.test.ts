import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { LaunchDetail, PresenceResponse, SaveDraftResponse, StudioError } from '../../src/studio/protocol.ts'
import { createFilePublisher } from '../../src/studio/server/file-publisher.ts'
import { createPostgresStudioStore } from '../../src/studio/server/postgres-store.ts'
import { openSqliteStudioStore } from '../../src/studio/server/sqlite-store.ts'
import type { StudioStore } from '../../src/studio/server/store.ts'
import { createStudio, type Studio } from '../../src/studio/server/studio.ts'
import { newToken, tokenHash } from '../../src/studio/server/tokens.ts'
import type { SignInCounts } from '../../src/server/store/sign-in-counts.ts'
import { backendsOf } from '../server/support/backends.ts'
import { originalText } from './support/studio-harness.ts'

// Two people on one launch, through the studio's HTTP API on a real SQLite file and a real PostgreSQL with the
// migrations: a save carries the draft version it was made from, and a save over a newer one is refused (409) with
// who saved it and when, nothing of theirs replaced. Plus the editors' heartbeat (who else has the launch open).

const slug = 'bramblewood-crossing'
const start = new Date('2026-11-25T12:00:00.000Z')
const backends = backendsOf<[], StudioStore>({
  sqlite: (file) => openSqliteStudioStore(file),
  postgres: (db) => createPostgresStudioStore(db),
  tables: [
    'studio_accounts',
    'studio_sessions',
    'studio_drafts',
    'studio_versions',
    'studio_audit',
    'studio_draft_versions',
    'studio_presence',
  ],
})

// Nobody signs in here (each person has a session already): the limiter's counts are never asked for.
const noSignIns: SignInCounts = {
  addSignInFailure: () => Promise.resolve(),
  countSignInFailures: () => Promise.resolve([]),
  saveSignInDevice: () => Promise.resolve(),
  isSignInDevice: () => Promise.resolve(false),
}

type Person = (pathname: string, method?: string, body?: unknown) => Promise<Response>

describe.each(backends)('a team on one launch', (backend) => {
  let store: StudioStore
  let studio: Studio
  let dir: string
  let now: Date
  let ann: Person
  let ben: Person

  beforeAll(() => backend.setup(), 60_000)
  afterAll(() => backend.teardown())
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'vip-team-'))
    cpSync('public', path.join(dir, 'public'), { recursive: true })
    cpSync('documents', path.join(dir, 'documents'), { recursive: true })
    cpSync('schema/page-config.schema.json', path.join(dir, 'schema/page-config.schema.json'))
    writeFileSync(path.join(dir, 'page.config.json'), originalText)
    store = await backend.fresh()
    now = start
    const publisher = createFilePublisher([
      { slug, siteName: 'Bramblewood Crossing', configFile: path.join(dir, 'page.config.json'), localUrl: '/' },
    ])
    studio = createStudio({
      store,
      publisher,
      signInCounts: noSignIns,
      secret: 'a-test-secret-of-enough-length-0123456789',
      clientDir: dir,
      secureCookies: false,
      clientAddress: () => '203.0.113.5',
      clock: () => now,
      log: { info: () => {}, error: () => {} },
    })
    ann = await signedIn('ann@example.com')
    ben = await signedIn('ben@example.com')
    return () => {
      store.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  /** A person with an editor account and a live session, calling the API as their browser would. */
  async function signedIn(email: string): Promise<Person> {
    const account = await store.createAccount({ email, role: 'editor' }, new Date(start.getTime() - 60_000))
    const session = newToken()
    await store.createSession(tokenHash(session), account.id, start, new Date(start.getTime() + 86_400_000))
    return (pathname, method = 'GET', body) =>
      Promise.resolve(
        studio.app.request(`/studio/api${pathname}`, {
          method,
          headers: {
            cookie: `studio_session=${session}`,
            origin: 'http://localhost',
            'content-type': 'application/json',
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      )
  }
  const save = (person: Person, text: string, baseVersion?: number) =>
    person(`/launches/${slug}/draft`, 'PUT', { text, baseVersion })
  const headingOf = (heading: string) => originalText.replace('"Bramblewood Crossing"', () => JSON.stringify(heading))

  describe(backend.name, () => {
    it('refuses a save made from an older draft version with 409, who saved the newer one and when, and keeps theirs', async () => {
      const opened = (await (await ben(`/launches/${slug}`)).json()) as LaunchDetail
      expect(opened.draftVersion).toBe(0)
      const first = headingOf('Bramblewood Crossing, Ann')
      const second = headingOf('Bramblewood Crossing, Ben')

      now = new Date(start.getTime() + 5 * 60_000)
      const saved = await save(ann, first, 0)
      expect(saved.status).toBe(200)
      expect(((await saved.json()) as SaveDraftResponse).version).toBe(1)

      now = new Date(start.getTime() + 6 * 60_000)
      const refused = await save(ben, second, opened.draftVersion)
      expect(refused.status).toBe(409)
      const answer = (await refused.json()) as StudioError
      expect(answer.error).toBe(
        'ann@example.com saved a newer draft (version 1) at 2026-11-25 12:05 UTC: your save was not made, so nothing of theirs was replaced.',
      )
      expect(answer.conflict).toEqual({
        version: 1,
        by: 'ann@example.com',
        savedAt: '2026-11-25T12:05:00.000Z',
        text: first,
      })
      expect(((await (await ben(`/launches/${slug}`)).json()) as LaunchDetail).draftText).toBe(first)

      // "Keep mine": saved from the version now seen, knowingly over theirs.
      const kept = await save(ben, second, answer.conflict!.version)
      expect(kept.status).toBe(200)
      expect(((await kept.json()) as SaveDraftResponse).version).toBe(2)
      const detail = (await (await ann(`/launches/${slug}`)).json()) as LaunchDetail
      expect(detail.draftText).toBe(second)
      expect(detail.draftVersion).toBe(2)
      expect(detail.draft?.by).toBe('ben@example.com')
    })

    it('keeps the version through a publish, so an editor opened before it cannot save over it unasked', async () => {
      const text = headingOf('Bramblewood Crossing, Published')
      expect((await save(ann, text, 0)).status).toBe(200)
      expect((await ann(`/launches/${slug}/publish`, 'POST', { text })).status).toBe(200)
      const detail = (await (await ben(`/launches/${slug}`)).json()) as LaunchDetail
      expect(detail.draftText).toBeUndefined()
      expect(detail.draftVersion).toBe(1)
      const stale = await save(ben, headingOf('From the old text'), 0)
      expect(stale.status).toBe(409)
      // The draft was published: their text is the live one.
      expect(((await stale.json()) as StudioError).conflict?.text).toBe(text)
      expect((await save(ben, headingOf('From the published text'), 1)).status).toBe(200)
    })

    it('lets only one of two saves made from the same version through, whichever comes first', async () => {
      const answers = await Promise.all([
        save(ann, headingOf('Ann at once'), 0),
        save(ben, headingOf('Ben at once'), 0),
      ])
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409])
      expect((await store.draftHead(slug))?.version).toBe(1)
    })

    it('refuses a version that is not a whole number, and saves without one as before', async () => {
      expect((await save(ann, originalText, -1)).status).toBe(400)
      expect((await ann(`/launches/${slug}/draft`, 'PUT', { text: originalText, baseVersion: '1' })).status).toBe(400)
      expect((await save(ann, originalText)).status).toBe(200)
      expect((await save(ben, originalText)).status).toBe(200)
      expect((await store.draftHead(slug))?.version).toBe(2)
    })

    it('lists who else has the launch open, by name, until their heartbeat stops or they leave', async () => {
      const beat = async (person: Person, editor: string) =>
        (await (await person(`/launches/${slug}/presence`, 'POST', { editor })).json()) as PresenceResponse
      expect((await beat(ann, 'editor-ann-1')).others).toEqual([])
      expect((await beat(ben, 'editor-ben-1')).others).toEqual([{ who: 'ann@example.com', since: start.toISOString() }])
      expect((await beat(ann, 'editor-ann-1')).others.map((o) => o.who)).toEqual(['ben@example.com'])
      // Ann's heartbeats stop (a lost connection): after 15 s she is no longer listed.
      now = new Date(start.getTime() + 16_000)
      expect((await beat(ben, 'editor-ben-1')).others).toEqual([])
      // Ann comes back, then closes her editor: gone at once. Ben cannot make her leave.
      await beat(ann, 'editor-ann-1')
      expect((await ben(`/launches/${slug}/presence/editor-ann-1`, 'DELETE')).status).toBe(200)
      expect((await beat(ben, 'editor-ben-1')).others.map((o) => o.who)).toEqual(['ann@example.com'])
      expect((await ann(`/launches/${slug}/presence/editor-ann-1`, 'DELETE')).status).toBe(200)
      expect((await beat(ben, 'editor-ben-1')).others).toEqual([])
      // The heartbeat also says which draft version is the latest.
      await save(ann, originalText, 0)
      expect((await beat(ben, 'editor-ben-1')).draft).toEqual({
        version: 1,
        by: 'ann@example.com',
        savedAt: now.toISOString(),
      })
      expect((await ben(`/launches/${slug}/presence`, 'POST', { editor: 'x' })).status).toBe(400)
    })
  })
})
