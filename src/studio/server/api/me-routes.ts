import type { Hono } from 'hono'
import * as OTPAuth from 'otpauth'
import type { MeResponse } from '../../protocol.ts'
import { checkTotp, totpOf } from '../auth/totp.ts'
import type { StudioContext, StudioEnv } from '../context.ts'
import { jsonBody, refuse, smallLimit } from './respond.ts'

/** A body's six-digit code, trimmed ('' when there is none). */
const codeOf = (body: Record<string, unknown>) => (typeof body.code === 'string' ? body.code.trim() : '')

/** GET /api/me: the signed-in person. */
export function addMeRoutes(app: Hono<StudioEnv>, ctx: StudioContext): void {
  app.get('/api/me', (c) => {
    const account = c.get('account')
    return c.json<MeResponse>({
      email: account.email,
      role: account.role,
      ...(account.launches ? { launches: account.launches } : {}),
      totp: account.totpSecret !== undefined,
      ...(ctx.local ? { local: true } : {}),
    })
  })
}

/** Two-factor sign-in (owners): a secret to scan, then turned on by a code from it; off by a current code. */
export function addTotpRoutes(app: Hono<StudioEnv>, ctx: StudioContext): void {
  app.post('/api/me/totp/setup', (c) => {
    const account = c.get('account')
    if (account.role !== 'owner') return refuse(c, 403, 'Two-factor sign-in is for owners.')
    const secret = new OTPAuth.Secret({ size: 20 }).base32
    return c.json({ secret, uri: totpOf(secret, account.email).toString() })
  })
  app.post('/api/me/totp', smallLimit, async (c) => {
    const account = c.get('account')
    if (account.role !== 'owner') return refuse(c, 403, 'Two-factor sign-in is for owners.')
    const body = (await jsonBody(c)) ?? {}
    const secret = typeof body.secret === 'string' && /^[A-Z2-7]{32}$/.test(body.secret) ? body.secret : undefined
    if (!secret)
      return refuse(c, 400, 'Send the secret from the setup step and a code: {"secret": "…", "code": "123456"}.')
    if (!checkTotp(secret, codeOf(body), ctx.clock()))
      return refuse(c, 400, 'That code is not right (it changes every 30 seconds). Please try again.')
    await ctx.store.setTotpSecret(account.id, secret, ctx.clock(), c.get('sessionHash'))
    await ctx.audit(account.email, 'two-factor on')
    return c.json({ totp: true })
  })
  app.delete('/api/me/totp', smallLimit, async (c) => {
    const account = c.get('account')
    const body = (await jsonBody(c)) ?? {}
    if (!account.totpSecret || !checkTotp(account.totpSecret, codeOf(body), ctx.clock()))
      return refuse(c, 400, 'Send a current code from your authenticator app to turn two-factor sign-in off.')
    await ctx.store.setTotpSecret(account.id, undefined, ctx.clock(), c.get('sessionHash'))
    await ctx.audit(account.email, 'two-factor off')
    return c.json({ totp: false })
  })
}
