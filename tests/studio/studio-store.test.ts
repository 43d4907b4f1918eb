import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { runStudioInvite } from '../../src/cli/studio-invite.ts'
import { createOneTimeLink } from '../../src/studio/server/links.ts'
import { openStudioStore } from '../../src/studio/server/node-studio.ts'
import { defaultScryptCost, hashPassword, verifyPassword } from '../../src/studio/server/passwords.ts'
import { createPostgresStudioStore, readOrCreatePostgresStudioKey } from '../../src/studio/server/postgres-store.ts'
import { openSqliteStudioStore } from '../../src/studio/server/sqlite-store.ts'
import { AccountExistsError, type StudioStore } from '../../src/studio/server/store.ts'
import { newToken, tokenHash } from '../../src/studio/server/tokens.ts'
import { backendsOf } from '../server/support/backends.ts'
import { plannedPostgresKind } from '../server/support/postgres.ts'

const now = new Date('2026-11-25T12:00:00.000Z')
const later = (ms: number) => new Date(now.getTime() + ms)
const hour = 3_600_000
const studioTables = [
  'studio_accounts',
  'studio_links',
  'studio_sessions',
  'studio_drafts',
  'studio_versions',
  'studio_audit',
]
const backends = backendsOf<[], StudioStore>({
  sqlite: (file) => openSqliteStudioStore(file),
  postgres: (db) => createPostgresStudioStore(db),
  tables: studioTables,
})

describe('studio passwords', () => {
  it("hash with scrypt at OWASP's cost, a salt of their own and the parameters stored", async () => {
    const a = await hashPassword('correct horse battery staple')
    const b = await hashPassword('correct horse battery staple')
    expect(a).toMatch(/^scrypt\$32768\$8\$3\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/)
    expect(a).not.toBe(b)
    expect(defaultScryptCost).toEqual({ N: 2 ** 15, r: 8, p: 3 })
    expect(await verifyPassword('correct horse battery staple', a)).toBe(true)
    expect(await verifyPassword('correct horse battery stable', a)).toBe(false)
    // A hash made at another cost still verifies: its parameters travel with it.
    expect(await verifyPassword('short cost', await hashPassword('short cost', { N: 1024, r: 8, p: 1 }))).toBe(true)
    expect(await verifyPassword('x', 'scrypt$1073741824$8$1$AAAA$AAAA')).toBe(false)
  })
})

describe.each(backends)('the StudioStore contract', (backend) => {
  let store: StudioStore
  beforeAll(() => backend.setup(), 60_000)
  afterAll(() => backend.teardown())
  beforeEach(async () => {
    store = await backend.fresh()
    return () => store.close()
  })

  describe(backend.name, () => {
    it('keeps accounts by their trimmed lower-case address, once each, with times as ISO 8601 UTC text', async () => {
      const jane = await store.createAccount(
        { email: ' Jane@Example.com ', role: 'editor', launches: ['maple-ridge'] },
        now,
      )
      expect(jane).toEqual({
        id: jane.id,
        email: 'jane@example.com',
        role: 'editor',
        launches: ['maple-ridge'],
        passwordHash: undefined,
        totpSecret: undefined,
        sessionsValidAfter: now.toISOString(),
        invitedAt: now.toISOString(),
      })
      await expect(store.createAccount({ email: 'JANE@example.com', role: 'owner' }, now)).rejects.toBeInstanceOf(
        AccountExistsError,
      )
      const alex = await store.createAccount({ email: 'alex@example.com', role: 'owner' }, later(1))
      expect(alex.launches).toBeUndefined()
      expect(await store.countAccounts()).toBe(2)
      expect((await store.listAccounts()).map((a) => a.email)).toEqual(['alex@example.com', 'jane@example.com'])
      expect(await store.findAccountByEmail('JANE@EXAMPLE.COM ')).toEqual(jane)
      expect(await store.findAccount(alex.id)).toEqual(alex)
      expect(await store.findAccount(alex.id + jane.id + 1)).toBeUndefined()
      expect(await store.findAccountByEmail('nobody@example.com')).toBeUndefined()
    })

    it('grants a launch to a limited account once, leaves an every-launch account alone, and keeps their sessions', async () => {
      const jane = await store.createAccount(
        { email: 'jane@example.com', role: 'sales', launches: ['maple-ridge'] },
        now,
      )
      const owner = await store.createAccount({ email: 'owner@example.com', role: 'owner' }, now)
      await store.createSession('jane-session', jane.id, later(1), later(hour))
      await store.grantLaunch(jane.id, 'willowmere-commons')
      await store.grantLaunch(jane.id, 'willowmere-commons')
      await store.grantLaunch(owner.id, 'willowmere-commons')
      expect((await store.findAccount(jane.id))!.launches).toEqual(['maple-ridge', 'willowmere-commons'])
      expect((await store.findAccount(owner.id))!.launches).toBeUndefined()
      expect((await store.findSession('jane-session', later(2)))?.launches).toEqual([
        'maple-ridge',
        'willowmere-commons',
      ])
    })

    it('uses a link once, not after it expires, and voids the unused links and every session when the password is set', async () => {
      const jane = await store.createAccount({ email: 'jane@example.com', role: 'editor' }, now)
      const { link, expiresAt } = await createOneTimeLink(store, jane.id, 'invite', now, 'https://www.example.com/')
      const token = link.split('/').pop()!
      expect(link).toBe(`https://www.example.com/studio/invite/${token}`)
      expect(await store.findLink(tokenHash(token), now)).toEqual({ accountId: jane.id, purpose: 'invite', expiresAt })
      expect(await store.findLink(tokenHash(token), new Date(expiresAt))).toBeUndefined()
      expect(await store.useLink(tokenHash(token), new Date(expiresAt))).toBe(false)
      expect(await store.useLink(tokenHash(token), now)).toBe(true)
      expect(await store.useLink(tokenHash(token), now)).toBe(false)
      expect(await store.findLink(tokenHash(token), now)).toBeUndefined()

      await store.createLink('reset-link', jane.id, 'reset', later(1), later(hour))
      await store.createSession('old-session', jane.id, later(1), later(hour))
      await store.setPassword(jane.id, 'scrypt$hash', later(10))
      expect((await store.findAccount(jane.id))!.passwordHash).toBe('scrypt$hash')
      expect((await store.findAccount(jane.id))!.sessionsValidAfter).toBe(later(10).toISOString())
      expect(await store.findLink('reset-link', later(11))).toBeUndefined()
      expect(await store.useLink('reset-link', later(11))).toBe(false)
      expect(await store.findSession('old-session', later(11))).toBeUndefined()
    })

    it('finds a live session only: not after it ends or expires, not when it started before the account changed', async () => {
      const jane = await store.createAccount(
        { email: 'jane@example.com', role: 'editor', launches: ['maple-ridge'] },
        now,
      )
      await store.createSession('live', jane.id, later(1), later(hour))
      expect(await store.findSession('live', later(2))).toMatchObject({ id: jane.id, email: 'jane@example.com' })
      expect(await store.findSession('live', later(hour))).toBeUndefined()
      expect(await store.findSession('unknown', later(2))).toBeUndefined()
      await store.endSession('live')
      expect(await store.findSession('live', later(2))).toBeUndefined()

      await store.createSession('before', jane.id, later(5), later(hour))
      await store.changeAccess(jane.id, { role: 'sales' }, later(10))
      expect(await store.findAccount(jane.id)).toMatchObject({
        role: 'sales',
        launches: undefined,
        sessionsValidAfter: later(10).toISOString(),
      })
      expect(await store.findSession('before', later(11))).toBeUndefined()
      // A session a request in flight was making when access changed (it started before) is void too.
      await store.createSession('in-flight', jane.id, later(9), later(hour))
      expect(await store.findSession('in-flight', later(11))).toBeUndefined()
      await store.createSession('after', jane.id, later(10), later(hour))
      expect(await store.findSession('after', later(11))).toMatchObject({ role: 'sales' })
      // Starting a session forgets the expired ones.
      await store.createSession('next', jane.id, later(hour), later(2 * hour))
      expect(await store.findSession('next', later(hour + 1))).toMatchObject({ email: 'jane@example.com' })
    })

    it('keeps only the current session when two-factor sign-in is turned on, and removes an account with its sessions and links', async () => {
      const jane = await store.createAccount({ email: 'jane@example.com', role: 'owner' }, now)
      await store.createSession('here', jane.id, later(1), later(hour))
      await store.createSession('elsewhere', jane.id, later(1), later(hour))
      await store.setTotpSecret(jane.id, 'JBSWY3DPEHPK3PXP', later(2), 'here')
      expect((await store.findAccount(jane.id))!.totpSecret).toBe('JBSWY3DPEHPK3PXP')
      expect(await store.findSession('here', later(3))).toMatchObject({ totpSecret: 'JBSWY3DPEHPK3PXP' })
      expect(await store.findSession('elsewhere', later(3))).toBeUndefined()
      await store.setTotpSecret(jane.id, undefined, later(4))
      expect((await store.findAccount(jane.id))!.totpSecret).toBeUndefined()
      expect(await store.findSession('here', later(5))).toBeUndefined()

      await store.createSession('again', jane.id, later(6), later(hour))
      await store.createLink('invite-link', jane.id, 'invite', later(6), later(hour))
      await store.removeAccount(jane.id)
      expect(await store.findAccount(jane.id)).toBeUndefined()
      expect(await store.findSession('again', later(7))).toBeUndefined()
      expect(await store.findLink('invite-link', later(7))).toBeUndefined()
      expect(await store.countAccounts()).toBe(0)
      // The address can be invited again.
      expect((await store.createAccount({ email: 'jane@example.com', role: 'editor' }, later(8))).email).toBe(
        'jane@example.com',
      )
    })

    it('keeps one draft per launch, replaced by the next save, listed by launch', async () => {
      await store.saveDraft('willowmere-commons', '{"a":1}', 'jane@example.com', now)
      await store.saveDraft('maple-ridge', '{"b":1}', 'jane@example.com', now)
      await store.saveDraft('maple-ridge', '{"b":2}', 'alex@example.com', later(1))
      expect(await store.getDraft('maple-ridge')).toEqual({
        launch: 'maple-ridge',
        text: '{"b":2}',
        by: 'alex@example.com',
        updatedAt: later(1).toISOString(),
      })
      expect((await store.listDrafts()).map((d) => [d.launch, d.text])).toEqual([
        ['maple-ridge', '{"b":2}'],
        ['willowmere-commons', '{"a":1}'],
      ])
      await store.deleteDraft('maple-ridge')
      expect(await store.getDraft('maple-ridge')).toBeUndefined()
      expect((await store.listDrafts()).map((d) => d.launch)).toEqual(['willowmere-commons'])
    })

    it('numbers versions per launch and keeps their exact text, author, message and origin', async () => {
      const text = '\uFEFF{\r\n  "a": "é"\r\n}'
      expect(
        await store.addVersion({
          launch: 'a',
          text,
          by: 'x@example.com',
          at: now.toISOString(),
          message: 'Spring prices',
          fromDisk: false,
        }),
      ).toBe(1)
      expect(
        await store.addVersion({ launch: 'b', text: '{}', by: 'disk', at: now.toISOString(), fromDisk: true }),
      ).toBe(1)
      expect(
        await store.addVersion({
          launch: 'a',
          text: '{}',
          by: 'x@example.com',
          at: later(1).toISOString(),
          fromDisk: false,
          restoredFrom: 1,
        }),
      ).toBe(2)
      expect(await store.getVersion('a', 1)).toEqual({
        launch: 'a',
        number: 1,
        text,
        by: 'x@example.com',
        at: now.toISOString(),
        message: 'Spring prices',
        fromDisk: false,
        restoredFrom: undefined,
      })
      expect(await store.getVersion('b', 1)).toMatchObject({ by: 'disk', fromDisk: true, message: undefined })
      expect(await store.getVersion('a', 3)).toBeUndefined()
      expect((await store.listVersions('a')).map((v) => [v.number, v.restoredFrom])).toEqual([
        [2, 1],
        [1, undefined],
      ])
      expect(await store.latestVersion('a')).toMatchObject({ number: 2, at: later(1).toISOString() })
      expect(await store.latestVersion('c')).toBeUndefined()
      expect(await store.listVersions('c')).toEqual([])
    })

    it('records a file from disk as a version only when the latest version has other text', async () => {
      const disk = (text: string, i: number) => ({
        launch: 'maple-ridge',
        text,
        by: 'disk',
        at: later(i).toISOString(),
        fromDisk: true,
      })
      expect(await store.addDiskVersion(disk('{"a":1}', 0))).toBe(1)
      expect(await store.addDiskVersion(disk('{"a":1}', 1))).toBeUndefined()
      expect(
        await store.addVersion({
          launch: 'maple-ridge',
          text: '{"a":2}',
          by: 'jane@example.com',
          at: later(2).toISOString(),
          fromDisk: false,
        }),
      ).toBe(2)
      // The file as it was two versions ago is a change from the latest: recorded again.
      expect(await store.addDiskVersion(disk('{"a":1}', 3))).toBe(3)
      expect(await store.addDiskVersion(disk('{"a":1}', 4))).toBeUndefined()
      expect(await store.addDiskVersion({ ...disk('{}', 5), launch: 'willowmere-commons' })).toBe(1)
      expect((await store.listVersions('maple-ridge')).map((v) => [v.number, v.fromDisk, v.at])).toEqual([
        [3, true, later(3).toISOString()],
        [2, false, later(2).toISOString()],
        [1, true, now.toISOString()],
      ])
    })

    it('lists the audit log newest first, up to the limit', async () => {
      await store.addAudit({
        at: now.toISOString(),
        who: 'jane@example.com',
        action: 'published',
        launch: 'maple-ridge',
        detail: 'version 2',
      })
      await store.addAudit({ at: later(1).toISOString(), who: 'alex@example.com', action: 'signed in' })
      await store.addAudit({
        at: later(2).toISOString(),
        who: 'alex@example.com',
        action: 'viewed the leads',
        launch: 'maple-ridge',
      })
      expect(await store.listAudit(2)).toEqual([
        {
          at: later(2).toISOString(),
          who: 'alex@example.com',
          action: 'viewed the leads',
          launch: 'maple-ridge',
          detail: undefined,
        },
        {
          at: later(1).toISOString(),
          who: 'alex@example.com',
          action: 'signed in',
          launch: undefined,
          detail: undefined,
        },
      ])
      expect((await store.listAudit(10)).at(-1)).toEqual({
        at: now.toISOString(),
        who: 'jane@example.com',
        action: 'published',
        launch: 'maple-ridge',
        detail: 'version 2',
      })
    })

    it('shows what one store wrote to another on the same data (a restart, or a second server)', async () => {
      const jane = await store.createAccount(
        { email: 'jane@example.com', role: 'editor', launches: ['maple-ridge'] },
        now,
      )
      const session = newToken()
      await store.createSession(tokenHash(session), jane.id, now, later(hour))
      await store.addVersion({ launch: 'maple-ridge', text: '{}', by: 'disk', at: now.toISOString(), fromDisk: true })
      const other = await backend.reopen()
      try {
        expect(await other.findSession(tokenHash(session), later(1))).toEqual(jane)
        expect(
          await other.addVersion({
            launch: 'maple-ridge',
            text: '{"b":1}',
            by: 'jane@example.com',
            at: later(1).toISOString(),
            fromDisk: false,
          }),
        ).toBe(2)
        await other.endSession(tokenHash(session))
        expect(await store.findSession(tokenHash(session), later(2))).toBeUndefined()
        expect((await store.latestVersion('maple-ridge'))?.text).toBe('{"b":1}')
      } finally {
        other.close()
      }
    })
  })
})

describe('the SQLite studio store', () => {
  const [sqlite] = backends
  beforeAll(() => sqlite!.setup())
  afterAll(() => sqlite!.teardown())

  it('keeps only hashes of links and sessions, in WAL with synchronous=FULL', async () => {
    const store = await sqlite!.fresh()
    const account = await store.createAccount({ email: 'jane@example.com', role: 'editor' }, now)
    const { link } = await createOneTimeLink(store, account.id, 'invite', now, 'https://www.example.com/')
    const token = link.split('/').pop()!
    const session = newToken()
    await store.createSession(tokenHash(session), account.id, now, later(60_000))
    store.close()
    const file = sqlite!.file()
    const bytes = readFileSync(file).toString('latin1') + readFileSync(`${file}-wal`, { flag: 'a+' }).toString('latin1')
    expect(bytes).not.toContain(token)
    expect(bytes).not.toContain(session)
    const db = new Database(file)
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    // Version 3: the team's tables (draft versions and presence, store/sqlite-team.ts).
    expect(db.pragma('user_version', { simple: true })).toBe(3)
    db.close()
  })
})

// Two servers on one PostgreSQL: each its own pool, racing. PGlite is one process with one connection: nothing races
// there.
describe.skipIf(plannedPostgresKind() === 'pglite')('the PostgreSQL studio store, two servers at once', () => {
  const [, postgres] = backends
  let pools: pg.Pool[] = []
  let stores: StudioStore[] = []
  beforeAll(async () => {
    await postgres!.setup()
    pools = [0, 1].map(() => new pg.Pool({ connectionString: postgres!.postgres().url!, max: 5 }))
    // A server's pool hears of its connections closing when the test's PostgreSQL stops; the server logs it
    // (node-store.ts).
    for (const pool of pools) pool.on('error', () => {})
    stores = pools.map((pool) => createPostgresStudioStore(pool))
  }, 60_000)
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()))
    await postgres!.teardown()
  })

  it('gives versions published at once distinct consecutive numbers', async () => {
    await postgres!.fresh()
    const publish = (store: StudioStore, i: number) =>
      store.addVersion({
        launch: 'maple-ridge',
        text: `{"n":${i}}`,
        by: 'jane@example.com',
        at: later(i).toISOString(),
        fromDisk: false,
      })
    const numbers = await Promise.all(Array.from({ length: 40 }, (_, i) => publish(stores[i % 2]!, i)))
    expect([...numbers].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1))
    const stored = await stores[0]!.listVersions('maple-ridge')
    expect(stored.map((v) => v.number)).toEqual(Array.from({ length: 40 }, (_, i) => 40 - i))
    // Each number holds the text of the publish it was given to.
    for (const [i, number] of numbers.entries())
      expect(stored.find((v) => v.number === number)!.text).toBe(`{"n":${i}}`)
  })

  it('records a file changed on disk once when two servers start at once', async () => {
    await postgres!.fresh()
    for (let round = 0; round < 10; round++) {
      const text = `{"round":${round}}`
      const numbers = await Promise.all(
        stores.map((store) =>
          store.addDiskVersion({
            launch: 'maple-ridge',
            text,
            by: 'disk',
            at: later(round).toISOString(),
            fromDisk: true,
          }),
        ),
      )
      expect(numbers.filter((n) => n !== undefined)).toEqual([round + 1])
    }
    expect((await stores[1]!.listVersions('maple-ridge')).map((v) => v.text)).toEqual(
      Array.from({ length: 10 }, (_, i) => `{"round":${9 - i}}`),
    )
  })

  it('gives every server the same studio key, made by whichever asks first', async () => {
    await postgres!.postgres().exec('DELETE FROM public.studio_settings')
    const keys = await Promise.all([...pools, ...pools].map((pool) => readOrCreatePostgresStudioKey(pool)))
    expect(keys[0]).toMatch(/^[0-9a-f]{64}$/)
    expect(new Set(keys).size).toBe(1)
    expect(await readOrCreatePostgresStudioKey(pools[1]!)).toBe(keys[0])
  })

  it('is what openStudioStore and npm run studio:invite use when given the database, with nothing written to DATA_DIR', async () => {
    await postgres!.fresh()
    const dataDir = mkdtempSync(path.join(tmpdir(), 'vip-studio-pg-'))
    try {
      const out: string[] = []
      const err: string[] = []
      const code = await runStudioInvite(
        ['--email', 'Owner@Example.com', '--role', 'owner'],
        { DATA_DIR: dataDir, DATABASE_URL: postgres!.postgres().url! },
        process.cwd(),
        (l) => out.push(l),
        (l) => err.push(l),
      )
      expect({ code, err }).toEqual({ code: 0, err: [] })
      const token = /\/studio\/invite\/(\S+)$/m.exec(out.join('\n'))![1]!
      const onAnotherServer = openStudioStore({ dataDir, pool: pools[1]! })
      const owner = await onAnotherServer.findAccountByEmail('owner@example.com')
      expect(owner).toMatchObject({ role: 'owner', passwordHash: undefined })
      expect(await onAnotherServer.findLink(tokenHash(token), new Date())).toMatchObject({
        accountId: owner!.id,
        purpose: 'invite',
      })
      expect((await onAnotherServer.listAudit(10)).map((entry) => entry.who)).toEqual(['npm run studio:invite'])
      expect(existsSync(path.join(dataDir, 'studio.sqlite'))).toBe(false)
      // Without a pool: the SQLite file, as before.
      const local = openStudioStore({ dataDir })
      expect(await local.countAccounts()).toBe(0)
      local.close()
      expect(existsSync(path.join(dataDir, 'studio.sqlite'))).toBe(true)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('lets exactly one of two servers use a link', async () => {
    await postgres!.fresh()
    const jane = await stores[0]!.createAccount({ email: 'jane@example.com', role: 'editor' }, now)
    for (let round = 0; round < 10; round++) {
      await stores[0]!.createLink(`link-${round}`, jane.id, 'invite', now, later(hour))
      const uses = await Promise.all([
        stores[0]!.useLink(`link-${round}`, later(1)),
        stores[1]!.useLink(`link-${round}`, later(1)),
      ])
      expect(uses.filter(Boolean)).toHaveLength(1)
    }
  })
})
