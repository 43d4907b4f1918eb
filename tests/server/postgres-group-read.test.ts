import pg from 'pg'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { withNamedStatements } from '../../src/server/store/postgres/postgres-named.ts'
import { createPostgresStore, type SqlQueryable } from '../../src/server/store/postgres/postgres-store.ts'
import { addressKeyOf } from '../../src/server/store/suppression.ts'
import { defaultLaunch, newLead } from './support/fixtures.ts'
import { plannedPostgresKind, startTestPostgres, type TestPostgres } from './support/postgres.ts'

// A registration asks whether its address withdrew and whether it is on the suppression list. On PostgreSQL those
// were two statements a registration; the lookups that arrive together now go as one statement each
// (store/postgres/postgres-group-read.ts), and the statements of every registration are named, so PostgreSQL parses
// and plans them once a connection (store/postgres/postgres-named.ts).
const secret = 'suppression-secret-0123456789'
const person = (n: number) => ({ name: `Person ${n}`, email: `person${n}@example.com`, isRealtor: 'no' })

describe('PostgreSQL lookups asked together', () => {
  let pgsql: TestPostgres
  let statements: string[]
  let failing: RegExp | undefined
  let db: SqlQueryable
  beforeAll(async () => {
    pgsql = await startTestPostgres()
  }, 60_000)
  afterAll(async () => {
    await pgsql?.stop()
  })
  beforeEach(async () => {
    await pgsql.reset()
    statements = []
    failing = undefined
    db = {
      query: (text, params) => {
        statements.push(text)
        if (failing?.test(text)) return Promise.reject(new Error('the database went away'))
        return pgsql.db.query(text, params)
      },
    }
  })

  it('answers thirty registrations checking their addresses at once with one statement each, each its own answer', async () => {
    const store = createPostgresStore(db, { defaultLaunch })
    // Person 3 withdrew (their lead stays), person 5 was erased and is on the suppression list only.
    const withdrawn = newLead({ fields: person(3) })
    await store.saveLead(withdrawn, null)
    await store.withdrawLead(withdrawn.submissionId, new Date('2026-03-01T12:00:00.000Z'))
    await store.suppressAddress(await addressKeyOf(secret, 'person5@example.com'))
    const people = Array.from({ length: 30 }, (_, n) => n)
    const keys = await Promise.all(people.map((n) => addressKeyOf(secret, `person${n}@example.com`)))
    statements = []
    const [isWithdrawn, isSuppressed] = await Promise.all([
      // As typed: another letter case and spaces around it.
      Promise.all(people.map((n) => store.isAddressWithdrawn(` Person${n}@Example.com `))),
      Promise.all(keys.map((key) => store.isSuppressed(key))),
    ])
    expect(people.filter((n) => isWithdrawn[n])).toEqual([3])
    expect(people.filter((n) => isSuppressed[n])).toEqual([5])
    expect(statements).toHaveLength(2)
  })

  it('fails every lookup of a statement that fails, and the next lookups ask again', async () => {
    const store = createPostgresStore(db, { defaultLaunch })
    failing = /withdrawn_at IS NOT NULL/
    const asked = await Promise.allSettled([1, 2, 3].map((n) => store.isAddressWithdrawn(`person${n}@example.com`)))
    expect(asked.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected'])
    failing = undefined
    expect(await store.isAddressWithdrawn('person1@example.com')).toBe(false)
  })
})

describe.skipIf(plannedPostgresKind() === 'pglite')('PostgreSQL named statements', () => {
  let pgsql: TestPostgres
  let pool: pg.Pool
  beforeAll(async () => {
    pgsql = await startTestPostgres()
    // One connection, so what it keeps prepared can be read on it.
    pool = new pg.Pool({ connectionString: pgsql.url, max: 1 })
  }, 60_000)
  afterAll(async () => {
    await pool?.end()
    await pgsql?.stop()
  })

  const prepared = async () =>
    (await pool.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).rows.map(
      (row) => row.name,
    )

  it('keeps a registration statement prepared on its connection, and runs on unnamed once a pooler has lost it', async () => {
    await pgsql.reset()
    const store = createPostgresStore(withNamedStatements(pool), { defaultLaunch })
    await store.saveLead(newLead({ fields: person(1) }), null)
    await store.isAddressWithdrawn('person1@example.com')
    expect(await prepared()).toEqual(['leads_withdrawn_addresses', 'save_lead'])
    // What a pooler in transaction mode does: the next server connection has none of them, while the client
    // believes its connection has them (pg then sends no Parse, and PostgreSQL answers 26000).
    await pool.query('DEALLOCATE ALL')
    const again = newLead({ fields: person(2) })
    expect((await store.saveLead(again, null)).created).toBe(true)
    expect(await store.isAddressWithdrawn('person2@example.com')).toBe(false)
    expect(await prepared()).toEqual([])
    expect((await store.findLead(again.submissionId))?.fields).toEqual(person(2))
  })
})
