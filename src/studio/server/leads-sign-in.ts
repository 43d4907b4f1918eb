import type { Context } from 'hono'
import type { StudioMount } from '../../server/node-options.ts'
import { clearSessionCookie, type StudioContext } from './context.ts'

/**
 * What the leads page gets from the studio (src/server/leads-page/viewers.ts, named through the server's StudioMount).
 */
export type StudioLeadsAccess = NonNullable<StudioMount['leads']>

/**
 * The studio's sign-in and audit log as the leads page at /leads uses them: a live studio session (every role) is a
 * viewer with its account's launches; signing out there ends the studio session; every look at the leads is a line
 * of the studio's audit log, which owners read in Audit log. The session cookie's path is / (context.ts), so the
 * browser sends it to /leads on the same origin.
 */
export function leadsAccessOf(ctx: StudioContext): StudioLeadsAccess {
  return {
    signIn: {
      signInPath: '/studio/sign-in',
      hasAccounts: async () => (await ctx.store.countAccounts()) > 0,
      async assignable() {
        const accounts = await ctx.store.listAccounts()
        return accounts
          .filter((account) => account.role === 'sales' || account.role === 'editor')
          .map((account) => ({ email: account.email, launches: account.launches }))
      },
      async viewerOf(c: Context) {
        const session = await ctx.sessionOf(c)
        if (!session) return undefined
        const { account, sessionHash } = session
        return { email: account.email, role: account.role, launches: account.launches, sessionKey: sessionHash }
      },
      async signOut(c: Context) {
        const session = await ctx.sessionOf(c)
        if (session) {
          await ctx.store.endSession(session.sessionHash)
          await ctx.audit(session.account.email, 'sign-out')
        }
        clearSessionCookie(c, ctx)
      },
    },
    audit: (entry) => ctx.audit(entry.who, entry.action, entry.launch, entry.detail),
  }
}
