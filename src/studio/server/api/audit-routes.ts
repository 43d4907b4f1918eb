import type { Hono } from 'hono'
import type { AuditEntry } from '../../protocol.ts'
import type { StudioContext, StudioEnv } from '../context.ts'
import { ownerOnly } from './access.ts'

/** GET /api/audit?limit=: the audit log, newest first (owners). */
export function addAuditRoutes(app: Hono<StudioEnv>, ctx: StudioContext): void {
  app.get('/api/audit', async (c) => {
    const refused = ownerOnly(c)
    if (refused) return refused
    const limit = Math.min(1000, Math.max(1, Number(c.req.query('limit')) || 200))
    return c.json<AuditEntry[]>(await ctx.store.listAudit(limit))
  })
}
