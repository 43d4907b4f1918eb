import type { Hono } from 'hono'
import type { StudioContext, StudioEnv } from './context.ts'
import { addForgotPasswordRoutes } from './auth/forgot-password.ts'
import { addInviteRoutes } from './auth/invite.ts'
import { addSignInRoutes } from './auth/sign-in.ts'

/**
 * Signing in and out, choosing a password from a one-time link, and asking for a reset link: server-rendered pages
 * that work without JavaScript, one file each in auth/. Sign-in is limited by the shared limiter
 * (src/server/registration/sign-in-limits.ts); a successful one leaves a device cookie that exempts this browser from
 * the per-account and /48 budgets for 30 days.
 */

/** Adds the pages: /studio/sign-in, /studio/sign-out, /studio/invite/:token, /studio/forgot-password. */
export function addAuthPages(app: Hono<StudioEnv>, ctx: StudioContext): void {
  addSignInRoutes(app, ctx)
  addInviteRoutes(app, ctx)
  addForgotPasswordRoutes(app, ctx)
}
