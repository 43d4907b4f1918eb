import type { Context } from 'hono'
import { getCookie } from 'hono/cookie'
import type { LeadsFilter, SessionStore } from './sessions.ts'

/**
 * Who may look at the leads page besides holders of the shared LEADS_PASSWORD: people signed in to the studio, and
 * where each look is written down (the studio's audit log). The studio builds both (src/studio/server) and the entry
 * passes them in: the site never imports the studio.
 */

/** A person signed in to the studio, as the leads page sees them. */
export type StudioViewer = {
  /** The account's e-mail address: who the audit log names. */
  email: string
  role: 'owner' | 'editor' | 'sales'
  /** The launches the account is limited to; undefined: every launch. */
  launches?: readonly string[] | undefined
  /** A key of the studio session (the hash the studio keeps of it), under which the page keeps the search. */
  sessionKey: string
}

/** The studio's sign-in, as the leads page uses it. */
export type StudioSignIn = {
  /** Whether the studio has any account yet (until then /leads is the shared password's alone, or off). */
  hasAccounts(): Promise<boolean>
  /** The person of the request's studio session cookie, when that session is live (not ended, expired or voided). */
  viewerOf(c: Context): Promise<StudioViewer | undefined>
  /** Ends the request's studio session (Sign out on the leads page) and clears its cookie. */
  signOut(c: Context): Promise<void>
  /** Where a person signs in with their e-mail and password. */
  signInPath: string
  /** The accounts a lead may be assigned to (role sales or editor), each with its launches (undefined: every one). */
  assignable?(): Promise<Array<{ email: string; launches?: readonly string[] | undefined }>>
}

/** Who is looking at the leads: a studio account or the shared password's session; what they narrowed the list to. */
export type Viewer = {
  /** For the audit log: the account's e-mail, or the shared password and the client's address. */
  who: string
  /** The launches they may see; undefined: every launch. */
  launches?: readonly string[] | undefined
  account?: StudioViewer
  filter: LeadsFilter
  saveFilter(filter: LeadsFilter): Promise<void>
}

/**
 * One line of the audit log: who (an e-mail, or "shared leads password from <client>"), what, which launch, and a
 * detail (a lead's id, a CSV's filter). Never a registrant's name, e-mail or phone, nor a search's text.
 */
export type LeadsAuditEntry = { who: string; action: string; launch?: string | undefined; detail?: string | undefined }

/** Writes an audit line (the studio's audit log, in DATA_DIR/studio.sqlite). */
export type LeadsAudit = (entry: LeadsAuditEntry) => Promise<void>

/** What the studio hands the leads page: its sign-in and its audit log. */
export type StudioLeadsAccess = { signIn: StudioSignIn; audit: LeadsAudit }

/** The shared password's session cookie, on /leads only. */
export const sessionCookie = 'leads_session'

/** What finding the viewer needs: the studio's sign-in, the shared password's sessions, the clock. */
export type ViewerDeps = {
  studio?: StudioSignIn | undefined
  checkPassword?: ((attempt: string) => boolean) | undefined
  sessions: SessionStore
  clock: () => Date
  sessionMs: number
  clientIp: (c: Context) => string
}

/** The shared password's session of the request (its token and filter), when there is a live one. */
export async function passwordSessionOf(
  c: Context,
  deps: ViewerDeps,
): Promise<{ token: string; filter: LeadsFilter } | undefined> {
  const token = getCookie(c, sessionCookie)
  if (!token || !deps.checkPassword) return undefined
  const session = await deps.sessions.find(token, deps.clock())
  return session ? { token, filter: session.filter } : undefined
}

/**
 * Who is looking, and at what: a studio account (its launches, its search kept under its session) or the shared
 * password's session. A studio session that ended, expired or was voided is nobody.
 */
export async function viewerOf(c: Context, deps: ViewerDeps): Promise<Viewer | undefined> {
  const { sessions, clock } = deps
  const account = deps.studio ? await deps.studio.viewerOf(c) : undefined
  if (account) {
    return {
      who: account.email,
      launches: account.launches,
      account,
      filter: await sessions.accountFilter(account.sessionKey, clock()),
      saveFilter: (filter) => sessions.saveAccountFilter(account.sessionKey, filter, clock(), deps.sessionMs),
    }
  }
  const session = await passwordSessionOf(c, deps)
  if (!session) return undefined
  return {
    who: `shared leads password from ${deps.clientIp(c)}`,
    filter: session.filter,
    saveFilter: (filter) => sessions.saveFilter(session.token, filter),
  }
}

/** Whether a viewer may see a launch's leads: every launch, or their account's. */
export function mayView(viewer: Viewer, launch: string): boolean {
  return viewer.launches === undefined || viewer.launches.includes(launch)
}

/** Whether the bar offers the studio: to an owner's or editor's account, not to sales or the shared password. */
export function studioLink(viewer: Viewer): boolean {
  return viewer.account !== undefined && viewer.account.role !== 'sales'
}
