import type { LaunchOptions } from '../leads/leads.ts'
import type { LeadStore } from '../store.ts'
import type { SqlQueryable } from '../sql-queryable.ts'
import { createPostgresSaveLead } from '../leads/postgres-save-lead.ts'
import { createPostgresLeads } from '../leads/postgres-leads.ts'
import { createPostgresLeadSearch } from '../leads/postgres-lead-search.ts'
import { createPostgresOutbox } from '../outbox/postgres-outbox.ts'
import { createPostgresOutboxCounts } from '../outbox/postgres-outbox-counts.ts'
import { createPostgresErasure } from '../erasure/postgres-erasure.ts'
import { createPostgresSuppression } from '../erasure/postgres-suppression.ts'
import { createPostgresSignInCounts } from '../sign-in-counts/postgres-sign-in-counts.ts'
import { createPostgresFollowUps } from '../follow-up/postgres-follow-up.ts'
import { createPostgresSamePerson } from '../follow-up/postgres-same-person.ts'
import { createPostgresPulse } from '../pulse/postgres-pulse.ts'
import { createPostgresVisits } from '../pulse/postgres-visits.ts'
import { createPostgresAnnouncements } from '../announcements/postgres-announcements.ts'
import { createPostgresDailyRuns } from '../daily-runs/postgres-daily-runs.ts'
import { createPostgresAccountMail } from '../account-mail/postgres-account-mail.ts'
import { createPostgresDocuments } from '../documents/postgres-documents.ts'

/**
 * What the store needs from a Postgres client (sql-queryable.ts); named here too for the entries and tests that import
 * it from here.
 */
export type { SqlQueryable } from '../sql-queryable.ts'

/** Options for the Postgres store. */
export type PostgresStoreOptions = LaunchOptions & {
  /** Called by close(), e.g. `() => pool.end()`. */
  close?: () => Promise<void>
}

/**
 * A LeadStore on PostgreSQL with the tables of supabase/migrations (apply them first), assembled from one module per
 * concern (store.ts). Each write is one statement, so one transaction, and no connection is held across awaits.
 */
export function createPostgresStore(db: SqlQueryable, options: PostgresStoreOptions): LeadStore {
  const { defaultLaunch } = options
  return {
    ...createPostgresSaveLead(db, defaultLaunch),
    ...createPostgresLeads(db, defaultLaunch),
    ...createPostgresLeadSearch(db, defaultLaunch),
    ...createPostgresOutbox(db),
    ...createPostgresOutboxCounts(db),
    ...createPostgresErasure(db),
    ...createPostgresSuppression(db),
    ...createPostgresSignInCounts(db),
    ...createPostgresFollowUps(db, defaultLaunch),
    ...createPostgresSamePerson(db, defaultLaunch),
    ...createPostgresPulse(db, defaultLaunch),
    ...createPostgresVisits(db),
    ...createPostgresAnnouncements(db, defaultLaunch),
    ...createPostgresDailyRuns(db),
    ...createPostgresAccountMail(db),
    ...createPostgresDocuments(db),
    async close() {
      await options.close?.()
    },
  }
}
