import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createPostgresStore, type SqlQueryable } from '../../src/server/store/postgres/postgres-store.ts'
import { defaultLaunch, mailFor, newLead } from './support/fixtures.ts'
import { startTestPostgres, type TestPostgres } from './support/postgres.ts'

// PostgreSQL's saves in groups (store/leads/postgres-group-commit.ts): registrations that arrive together are one
// statement, so one round trip and one commit, the roster's turns included, and each still gets its own answer.
describe('PostgreSQL group commit', () => {
  let pg: TestPostgres
  let statements: string[]
  let db: SqlQueryable
  beforeAll(async () => {
    pg = await startTestPostgres()
  })
  afterAll(async () => {
    await pg?.stop()
  })
  beforeEach(async () => {
    await pg.reset()
    statements = []
    db = {
      query: (text, params) => {
        statements.push(text)
        return pg.db.query(text, params)
      },
    }
  })

  it('saves thirty registrations arriving together in one statement, each with its messages and its own roster turn', async () => {
    const store = createPostgresStore(db, { defaultLaunch })
    const people = ['alex@example.com', 'sam@example.com', 'kim@example.com']
    const leads = Array.from({ length: 30 }, () => newLead())
    const results = await Promise.all(
      leads.map((lead) =>
        store.saveLead(lead, mailFor(lead), [], {
          turns: defaultLaunch,
          author: 'Roster',
          candidates: people.map((assignee) => ({ assignee, mail: { ...mailFor(lead), to: assignee } })),
        }),
      ),
    )
    expect(statements).toHaveLength(1)
    expect(results.every((r) => r.created)).toBe(true)
    expect(results.map((r) => r.lead.submissionId)).toEqual(leads.map((l) => l.submissionId))
    // Turns 1 to 30 in the order the registrations arrived: alex, sam, kim, alex …
    const assignees = await Promise.all(results.map(async (r) => (await store.followUpOf(r.lead.id)).assignee))
    expect(assignees).toEqual(leads.map((_, i) => people[i % 3]))
    const { rows } = await pg.db.query('SELECT turns FROM public.roster_turns WHERE roster = $1', [defaultLaunch])
    expect(Number((rows[0] as { turns: string }).turns)).toBe(30)
    expect(await store.countMessages()).toMatchObject({ pending: 60 })
  })

  it('answers a repeated submission in a group with the stored lead, created once', async () => {
    const store = createPostgresStore(db, { defaultLaunch })
    const [a, b] = [newLead(), newLead()]
    const first = await store.saveLead(a, mailFor(a))
    statements = []
    const [again, other] = await Promise.all([store.saveLead(a, mailFor(a)), store.saveLead(b, mailFor(b))])
    expect(again).toMatchObject({ created: false, lead: { id: first.lead.id } })
    expect(other.created).toBe(true)
    // The batch, and the read-back of the repeated one.
    expect(statements).toHaveLength(2)
    expect(await store.countMail()).toEqual({ pending: 2, sent: 0 })
  })
})
