import type { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { checkInventoryCsv } from '../../../server/release/inventory-csv.ts'
import type { InventoryImportResponse } from '../../protocol.ts'
import type { StudioContext, StudioEnv } from '../context.ts'
import { launchFor } from './access.ts'
import { refuse } from './respond.ts'

/**
 * The lots' table of the Allocation page (issue 45), beside the allocation API: owners and editors given the launch
 * read the lots and upload the builder's price list (CSV), checked by the same checker as `npm run inventory:import`;
 * each refused row comes back with its line and column, the others are imported; allocated lots are never changed.
 * Sales accounts read the lots through the board (allocation-routes.ts) and change nothing here.
 */

/** The largest price list taken: 2 MB (a few thousand lots). */
const csvLimit = bodyLimit({
  maxSize: 2 * 1024 * 1024,
  onError: (c) => refuse(c, 413, 'The price list is larger than 2 MB.'),
})

/** Adds GET /api/launches/:slug/lots and POST /api/launches/:slug/lots/import (only with a release store). */
export function addInventoryRoutes(app: Hono<StudioEnv>, ctx: StudioContext): void {
  const release = ctx.release
  if (!release) return
  app.get('/api/launches/:slug/lots', async (c) => {
    const launch = launchFor(ctx, c)
    if (launch instanceof Response) return launch
    return c.json({ lots: await release.listLots(launch.slug) })
  })
  app.post('/api/launches/:slug/lots/import', csvLimit, async (c) => {
    const launch = launchFor(ctx, c)
    if (launch instanceof Response) return launch
    const type = c.req.header('content-type') ?? ''
    if (!/^text\/(csv|plain)\b/i.test(type) && !/^application\/vnd\.ms-excel\b/i.test(type))
      return refuse(c, 415, 'Send the price list as a CSV file (a spreadsheet saved as CSV).')
    const checked = checkInventoryCsv(await c.req.text())
    const counts =
      checked.lots.length > 0
        ? await release.importLots(launch.slug, checked.lots, ctx.clock().toISOString())
        : { created: 0, changed: 0, unchanged: 0, keptAllocated: [] }
    const by = c.get('account').email
    const summary = `import price list: ${counts.created} new, ${counts.changed} changed, ${checked.problems.length} refused`
    await ctx.audit(by, summary, launch.slug)
    return c.json<InventoryImportResponse>({ ...counts, rows: checked.rows, problems: checked.problems })
  })
}
