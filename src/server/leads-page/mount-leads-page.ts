import { logValue } from '../../../schema/log-value.ts'
import path from 'node:path'
import type { Context, Hono } from 'hono'
import type { SqlQueryable } from '../store/sql-queryable.ts'
import type { SignInCounts } from '../store/sign-in-counts.ts'
import type { LeadsPageDeps, LeadsPageStore } from './context.ts'
import { createLeadsPage } from './leads-page.ts'
import { createPostgresSessionStore } from './postgres-sessions.ts'
import { createPasswordCheck, openSessionStore, type SessionStore } from './sessions.ts'
import type { LeadsAudit, StudioLeadsAccess } from './viewers.ts'
import type { AnnouncementDeps } from './announcements.ts'
import type { LeadsWorksheets } from './leads-csv.ts'

/** What the Node server gives the leads page. */
export type LeadsPageMountOptions = {
  /** DATA_DIR, locked by the server: the sessions live in leads-page.sqlite there, unless `pool` is given. */
  dataDir: string
  /** The PostgreSQL pool when DATABASE_URL is set: the sessions live there instead, shared by every server on it. */
  pool?: SqlQueryable | undefined
  /** LEADS_PASSWORD, when set. */
  password: string | undefined
  /** The studio's sign-in and audit log; absent when the server runs without the studio. */
  studio: StudioLeadsAccess | undefined
  store: LeadsPageStore & SignInCounts
  launches: LeadsPageDeps['launches']
  timeZone: string
  trustProxy: number
  clientIp: (c: Context) => string
  /** Queue a signed lead.updated webhook call with each follow-up change (WEBHOOK_URL is set). */
  webhook?: boolean
  /** Called after a webhook call or an announcement was queued: the outbox worker's kick. */
  onQueued?: () => void
  /** What sending announcements needs (announcements.ts). */
  announcements?: AnnouncementDeps
  /** The realtors' worksheets, shown on their leads and in the CSV. */
  worksheets?: LeadsWorksheets | undefined
}

/** The leads page as mounted: how it is reached now, and what to close at stop. */
export type MountedLeadsPage = {
  /** 'password': LEADS_PASSWORD is set (studio accounts sign in too); 'accounts': studio accounts only; 'off'. */
  state(): Promise<'password' | 'accounts' | 'off'>
  close(): void
}

/**
 * The leads page's sessions where the server keeps its data: PostgreSQL when a pool is given (DATABASE_URL; the pool
 * stays its owner's to end), else DATA_DIR/leads-page.sqlite. Bound to `password` (LEADS_PASSWORD, '' without one).
 */
export function openLeadsPageSessions(
  where: { dataDir: string; pool?: SqlQueryable | undefined },
  password: string,
): SessionStore {
  return where.pool
    ? createPostgresSessionStore(where.pool, password)
    : openSessionStore(path.join(where.dataDir, 'leads-page.sqlite'), password)
}

/**
 * Mounts the leads page at /leads on the Node server's site: on when LEADS_PASSWORD is set or the studio has an
 * account (checked on each request, so the first `npm run studio:invite` turns it on without a restart); while off,
 * /leads is the site's (its 404 page), as when the page did not exist. Without the studio, each look at the leads is
 * written to the server's log instead of the audit log.
 */
export function mountLeadsPage(site: Hono, options: LeadsPageMountOptions): MountedLeadsPage | undefined {
  const { password, studio } = options
  if (password === undefined && studio === undefined) return undefined
  // Without LEADS_PASSWORD every shared-password session is void (the store is bound to '' then).
  const sessions = openLeadsPageSessions(options, password ?? '')
  const audit: LeadsAudit =
    studio?.audit ??
    ((entry) => {
      console.log(
        `Leads page: ${logValue(entry.who)} ${entry.action}${entry.launch ? ` (${logValue(entry.launch)})` : ''}${entry.detail ? `: ${logValue(entry.detail)}` : ''}`,
      )
      return Promise.resolve()
    })
  const app = createLeadsPage({
    checkPassword: password === undefined ? undefined : createPasswordCheck(password),
    studio: studio?.signIn,
    audit,
    store: options.store,
    sessions,
    launches: options.launches,
    timeZone: options.timeZone,
    trustProxy: options.trustProxy,
    signInCounts: options.store,
    clientIp: options.clientIp,
    webhook: options.webhook ?? false,
    ...(options.onQueued ? { onQueued: options.onQueued } : {}),
    announcements: options.announcements,
    worksheets: options.worksheets,
  })
  const state = async () =>
    password !== undefined ? 'password' : (await studio!.signIn.hasAccounts()) ? 'accounts' : 'off'
  const toLeadsPage = async (c: Context, next: () => Promise<void>) => {
    if ((await state()) === 'off') return next()
    return app.fetch(c.req.raw, c.env)
  }
  site.all('/leads', toLeadsPage)
  site.all('/leads/*', toLeadsPage)
  return { state, close: () => sessions.close() }
}
