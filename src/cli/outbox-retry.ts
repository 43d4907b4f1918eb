import { existsSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import { readExportSettings, SettingsError } from '../server/env.ts'
import { defaultLaunchSlug } from './launch-catalog.ts'
import { createPostgresStore } from '../server/store/postgres/postgres-store.ts'
import { openSqliteStore } from '../server/store/sqlite/sqlite-store.ts'
import type { LeadStore, MessageState } from '../server/store/store.ts'

/**
 * `npm run outbox:retry`: puts every failed message (notification, reply, webhook call) back in the queue, due now,
 * with a fresh count of attempts, and says how many. The running Node server sends them within seconds; on Supabase
 * the next scheduled call does. Works beside a running server (SQLite allows a second writer). Reads DATA_DIR
 * (default ./.data), or PostgreSQL when DATABASE_URL is set.
 */

/** Lists the failed messages by kind and reason (no addresses: last errors have none), then retries them. */
export async function retryFailed(store: LeadStore, now = new Date()): Promise<{ count: number; lines: string[] }> {
  const failed: MessageState[] = []
  for (let after = 0; ;) {
    const page = await store.listMessages({ status: 'failed', afterId: after, limit: 500 })
    failed.push(...page)
    if (page.length < 500) break
    after = page.at(-1)!.id
  }
  const count = await store.retryFailedMessages(now)
  const byReason = new Map<string, number>()
  for (const m of failed) {
    const key = `${m.kind}: ${m.lastError ?? 'no error recorded'}`
    byReason.set(key, (byReason.get(key) ?? 0) + 1)
  }
  const lines = [...byReason].map(([reason, n]) => `  ${n} × ${reason}`)
  return { count, lines }
}

async function main(): Promise<number> {
  // Retries read messages, never a lead's launch: no usable config is needed, only a name to give.
  const defaultLaunch = defaultLaunchSlug() ?? 'default'
  let store: LeadStore
  let where: string
  const databaseUrl = process.env.DATABASE_URL?.trim()
  if (databaseUrl) {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 })
    store = createPostgresStore(pool, { defaultLaunch, close: () => pool.end() })
    where = 'PostgreSQL (DATABASE_URL)'
  } else {
    let dataDir: string
    try {
      dataDir = readExportSettings(process.env).dataDir
    } catch (error) {
      console.error(error instanceof SettingsError ? error.message : error)
      return 1
    }
    const file = path.join(path.resolve(dataDir), 'leads.sqlite')
    if (!existsSync(file)) {
      console.error(`No leads database at ${file}: check DATA_DIR (or set DATABASE_URL for PostgreSQL).`)
      return 1
    }
    store = openSqliteStore(file, { defaultLaunch })
    where = file
  }
  try {
    const { count, lines } = await retryFailed(store)
    if (count === 0) {
      console.log(`No failed messages in ${where}: nothing to retry.`)
      return 0
    }
    console.log(`Put ${count} failed message${count === 1 ? '' : 's'} back in the queue (${where}):`)
    for (const line of lines) console.log(line)
    console.log('The running server sends them within a few seconds; on Supabase, the next scheduled delivery does.')
    return 0
  } catch (error) {
    console.error(`Could not retry: ${(error as Error).message}`)
    return 1
  } finally {
    await store.close()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = await main()
}
