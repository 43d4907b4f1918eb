import pg from 'pg'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { functionLaunchOf, type FunctionLaunch } from '../../schema/function-launch.ts'
import type { PageConfig } from '../../schema/page-config.ts'
import { createPublishedLaunches, readPublishedContracts } from '../../src/server/site/published-contracts.ts'
import { readPageConfig } from './support/fixtures.ts'
import { freePort } from './support/ports.ts'
import type { SqlQueryable } from '../../src/server/store/sql-queryable.ts'
import { plannedPostgresKind, startTestPostgres, type TestPostgres } from './support/postgres.ts'

// What the Edge Function serves (issue 26): each launch's newest published contract from a real PostgreSQL with the
// real migrations, else the bundle's; read again at most every refreshMs, made again only when a number changed.

const first = readPageConfig()
const bundled = functionLaunchOf(first)
const otherConfig = { ...first, launch: { ...first.launch, slug: 'willowmere-commons' } } as PageConfig
const bundledOther = functionLaunchOf(otherConfig)

/** The default launch's contract as published with `title` as its site name. */
function contractNamed(name: string): FunctionLaunch {
  return { ...bundled, site: { ...bundled.site, name } }
}

let db: TestPostgres
beforeAll(async () => {
  db = await startTestPostgres()
}, 60_000)
afterAll(() => db?.stop())
beforeEach(() => db.db.query('DELETE FROM public.published_builds'))

async function publish(launch: string, number: number, contract: unknown): Promise<void> {
  await db.db.query(
    `INSERT INTO public.published_builds (launch, number, config_text, manifest) VALUES ($1, $2, '{}', $3::jsonb)`,
    [launch, number, JSON.stringify({ contract, tagManager: false })],
  )
}

/** A clock the test moves, the launches made (one entry per make) and the log. */
function harness(read = () => readPublishedContracts(db.db)) {
  let ms = 0
  const made: string[][] = []
  const logged: string[] = []
  const served = createPublishedLaunches({
    bundle: [bundled, bundledOther],
    read,
    make: (launches) => {
      made.push(launches.map((launch) => `${launch.slug}:${launch.site.name}`))
      if (launches.some((launch) => launch.site.name === 'Breaks')) throw new Error('schema is invalid')
      return made.length
    },
    refreshMs: 10_000,
    now: () => ms,
    log: (message) => logged.push(message),
    info: () => {},
  })
  return { served, made, logged, advance: (by: number) => (ms += by) }
}

describe(`the published launches the function serves (${plannedPostgresKind()})`, () => {
  it("serves the bundle's launches until one is published, then the newest contract, re-read only after refreshMs", async () => {
    const { served, made, advance } = harness()
    expect(await served.current()).toBe(1)
    expect(made).toEqual([[`${bundled.slug}:${bundled.site.name}`, `willowmere-commons:${bundled.site.name}`]])

    await publish(bundled.slug, 1, contractNamed('First publish'))
    await publish(bundled.slug, 2, contractNamed('Second publish'))
    advance(9_999)
    expect(await served.current()).toBe(1)
    advance(1)
    expect(await served.current()).toBe(2)
    // The newest number of each launch; a launch only in the bundle is still served.
    expect(made[1]).toEqual([`${bundled.slug}:Second publish`, `willowmere-commons:${bundled.site.name}`])

    // Nothing new: read again, but the same app.
    advance(10_000)
    expect(await served.current()).toBe(2)
    expect(made).toHaveLength(2)
  })

  it('serves a launch only published (not in the bundle) after the bundle ones', async () => {
    await publish('cedar-row', 1, { ...contractNamed('Cedar Row'), slug: 'cedar-row' })
    const { served, made } = harness()
    await served.current()
    expect(made).toEqual([
      [`${bundled.slug}:${bundled.site.name}`, `willowmere-commons:${bundled.site.name}`, 'cedar-row:Cedar Row'],
    ])
  })

  it('shares one reading between callers at once', async () => {
    let reads = 0
    const { served } = harness(() => {
      reads++
      return readPublishedContracts(db.db)
    })
    expect(await Promise.all([served.current(), served.current(), served.current()])).toEqual([1, 1, 1])
    expect(reads).toBe(1)
  })

  it('keeps the last launches when the database cannot be read, says so in the log, and reads again later', async () => {
    await publish(bundled.slug, 1, contractNamed('Published'))
    let pool: SqlQueryable = db.db
    const { served, made, logged, advance } = harness(() => readPublishedContracts(pool))
    expect(await served.current()).toBe(1)
    expect(made[0]![0]).toBe(`${bundled.slug}:Published`)

    // Nothing listens on this port: a real connection refused.
    const down = new pg.Pool({
      connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/postgres`,
      connectionTimeoutMillis: 2_000,
    })
    pool = down
    advance(10_000)
    expect(await served.current()).toBe(1)
    expect(logged).toEqual([
      expect.stringMatching(
        /^send-contact-email: could not read the published launches \(.*ECONNREFUSED.*\); serving the last ones read\.$/,
      ),
    ])
    await down.end()

    pool = db.db
    await publish(bundled.slug, 2, contractNamed('Back'))
    advance(10_000)
    expect(await served.current()).toBe(2)
    expect(made[1]![0]).toBe(`${bundled.slug}:Back`)
  })

  it("serves the bundle's launches when the database cannot be read at first", async () => {
    const down = new pg.Pool({
      connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/postgres`,
      connectionTimeoutMillis: 2_000,
    })
    const { served, made, logged } = harness(() => readPublishedContracts(down))
    expect(await served.current()).toBe(1)
    expect(made).toEqual([[`${bundled.slug}:${bundled.site.name}`, `willowmere-commons:${bundled.site.name}`]])
    expect(logged[0]).toMatch(/serving the bundle's\.$/)
    await down.end()
  })

  it("keeps a launch on its last version when its newest cannot be served, while another launch's newest goes live; skips one without a contract", async () => {
    const { served, made, logged, advance } = harness()
    expect(await served.current()).toBe(1)
    await publish(bundled.slug, 1, contractNamed('Breaks'))
    await publish(bundledOther.slug, 1, {
      ...bundledOther,
      site: { ...bundledOther.site, name: 'Willowmere, published' },
    })
    advance(10_000)
    await served.current()
    // One launch's problem is its own: the other launch's new version is served, the broken one keeps the bundle's.
    expect(made.at(-1)).toEqual([`${bundled.slug}:${bundled.site.name}`, `${bundledOther.slug}:Willowmere, published`])
    expect(logged).toEqual([
      'send-contact-email: version 1 of launch bramblewood-crossing cannot be served (schema is invalid); serving the one before.',
    ])
    // Told once, not at every reading; nothing made again while nothing changed.
    const makes = made.length
    advance(10_000)
    await served.current()
    expect(made).toHaveLength(makes)
    expect(logged).toHaveLength(1)

    await publish(bundled.slug, 2, null)
    advance(10_000)
    await served.current()
    expect(made.at(-1)![0]).toBe(`${bundled.slug}:${bundled.site.name}`)
    expect(logged[1]).toBe(
      'send-contact-email: version 2 of launch bramblewood-crossing has no usable contract; serving the one before.',
    )
  })
})
