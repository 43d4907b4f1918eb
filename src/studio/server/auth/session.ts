import type { Context } from 'hono'
import type { StudioContext } from '../context.ts'
import { setSessionCookie } from '../context.ts'
import type { Account } from '../store.ts'
import { newToken, tokenHash } from '../tokens.ts'

/** Starts a session for an account and sets its cookie. */
export async function startSession(ctx: StudioContext, c: Context, account: Account): Promise<void> {
  const id = newToken()
  const now = ctx.clock()
  await ctx.store.createSession(tokenHash(id), account.id, now, new Date(now.getTime() + ctx.sessionMs))
  setSessionCookie(c, ctx, id)
}

/** A form field's text ('' when it is missing or a file). */
export function field(body: Record<string, unknown>, name: string): string {
  const value = body[name]
  return typeof value === 'string' ? value : ''
}
