import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createOneTimeLink } from '../../src/studio/server/links.ts'
import { defaultScryptCost, hashPassword, verifyPassword } from '../../src/studio/server/passwords.ts'
import { openSqliteStudioStore } from '../../src/studio/server/sqlite-store.ts'
import { AccountExistsError, type StudioStore } from '../../src/studio/server/store.ts'
import { newToken, tokenHash } from '../../src/studio/server/tokens.ts'

let dir: string
let file: string
let store: StudioStore
const now = new Date('2026-11-25T12:00:00Z')

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'vip-studio-store-'))
  file = path.join(dir, 'studio.sqlite')
  store = openSqliteStudioStore(file)
})
afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
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

describe('the SQLite studio store', () => {
  it('keeps only hashes of links and sessions, in WAL with synchronous=FULL, and survives a reopen', async () => {
    const account = await store.createAccount({ email: ' Jane@Example.com ', role: 'editor', launches: ['maple-ridge'] }, now)
    await expect(store.createAccount({ email: 'jane@example.com', role: 'owner' }, now)).rejects.toBeInstanceOf(AccountExistsError)
    const { link } = await createOneTimeLink(store, account.id, 'invite', now, 'https://www.example.com/')
    const token = link.split('/').pop()!
    expect(link).toBe(`https://www.example.com/studio/invite/${token}`)
    const session = newToken()
    await store.createSession(tokenHash(session), account.id, now, new Date(now.getTime() + 60_000))
    store.close()
    const bytes = readFileSync(file).toString('latin1') + readFileSync(`${file}-wal`, { flag: 'a+' }).toString('latin1')
    expect(bytes).not.toContain(token)
    expect(bytes).not.toContain(session)
    const db = new Database(file)
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(db.pragma('user_version', { simple: true })).toBe(1)
    db.close()

    store = openSqliteStudioStore(file)
    expect(await store.findAccountByEmail('JANE@example.com')).toMatchObject({ email: 'jane@example.com', role: 'editor', launches: ['maple-ridge'] })
    expect(await store.findSession(tokenHash(session), now)).toMatchObject({ email: 'jane@example.com' })
    expect(await store.findLink(tokenHash(token), new Date(now.getTime() + 24 * 3_600_000))).toBeUndefined()
    expect(await store.useLink(tokenHash(token), now)).toBe(true)
    expect(await store.useLink(tokenHash(token), now)).toBe(false)
  })

  it('numbers versions per launch and keeps their exact text', async () => {
    const text = '\uFEFF{\r\n  "a": "é"\r\n}'
    expect(await store.addVersion({ launch: 'a', text, by: 'x@example.com', at: now.toISOString(), fromDisk: false })).toBe(1)
    expect(await store.addVersion({ launch: 'b', text: '{}', by: 'disk', at: now.toISOString(), fromDisk: true })).toBe(1)
    expect(await store.addVersion({ launch: 'a', text: '{}', by: 'x@example.com', at: now.toISOString(), fromDisk: false, restoredFrom: 1 })).toBe(2)
    expect((await store.getVersion('a', 1))!.text).toBe(text)
    expect((await store.listVersions('a')).map((v) => [v.number, v.restoredFrom])).toEqual([[2, 1], [1, undefined]])
  })
})
