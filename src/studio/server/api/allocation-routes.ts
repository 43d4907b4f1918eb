import type { Context, Hono } from 'hono'
import { allocateInOrder, type Proposal } from '../../../server/release/allocate-in-order.ts'
import {
  allocateLot,
  confirmProposals,
  decideWorksheet,
  type AllocationDeps,
  type Decision,
} from '../../../server/release/allocation.ts'
import type { ServedLaunch } from '../../../server/site/launch-publisher.ts'
import type { StudioContext, StudioEnv } from '../context.ts'
import { fileText, servedLaunch } from '../launches.ts'
import { worksheetTextsOf, type WorksheetsConfig, type WorksheetTexts } from '../../../../schema/worksheets.ts'
import { launchFor } from './access.ts'
import { addInventoryRoutes } from './inventory-routes.ts'
import { jsonBody, refuse } from './respond.ts'
import { lotStatuses, type LotStatus } from '../../../server/store/release.ts'

/**
 * The allocation board's API (issue 45), under /api/launches/:slug/allocation: the worksheets in received order with
 * the lots, allocate, waitlist, decline, "allocate in order"'s proposals and their confirmation. Owners, and sales
 * accounts given the launch; each decision is in the audit log.
 */

/** The launch of the route's :slug if the account may allocate in it; else the refusal to send. */
function allocationLaunch(ctx: StudioContext, c: Context<StudioEnv>): ServedLaunch | Response {
  const account = c.get('account')
  const slug = c.req.param('slug') ?? ''
  const launch = servedLaunch(ctx, slug)
  if (!launch) return refuse(c, 404, `There is no launch "${slug}".`)
  const given = account.launches === undefined || account.launches.includes(slug)
  if (account.role === 'owner' || (account.role === 'sales' && given)) return launch
  return refuse(c, 403, `Allocation in "${slug}" is for owners and the sales accounts given the launch.`)
}

/** A decision as the API answers it. */
function answer(c: Context, decision: Decision): Response {
  return decision.ok ? c.json({ ok: true }) : refuse(c, decision.status, decision.error)
}

const positive = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value.trim() : undefined)

/** The proposals of a confirmation's body; undefined when they are not proposals. */
function proposalsOf(value: unknown): Proposal[] | undefined {
  if (!Array.isArray(value)) return undefined
  const proposals: Proposal[] = []
  for (const item of value as Array<Record<string, unknown>>) {
    const worksheetId = positive(item?.worksheetId)
    if (!worksheetId) return undefined
    const number = positive(item.number) ?? 0
    const [lot, model] = [text(item.lot), text(item.model)]
    if (item.waitlist === true) proposals.push({ worksheetId, number, waitlist: true })
    else if (lot && model) proposals.push({ worksheetId, number, lot, model, choice: 0, price: 0 })
    else return undefined
  }
  return proposals
}

/** The outcome e-mails' words: the launch's file as served (its `worksheets.texts`), the defaults where it has none. */
function liveWorksheetTexts(launch: ServedLaunch): WorksheetTexts {
  try {
    const config = JSON.parse(fileText(launch) ?? '{}') as { worksheets?: WorksheetsConfig }
    return worksheetTextsOf(config.worksheets)
  } catch {
    return worksheetTextsOf(undefined)
  }
}

/** Adds the allocation routes and the lots' changes (only when the server has a release store). */
export function addAllocationRoutes(app: Hono<StudioEnv>, ctx: StudioContext): void {
  const release = ctx.release
  if (!release) return
  addLotRoute(app, ctx)
  addInventoryRoutes(app, ctx)
  const base = '/api/launches/:slug/allocation'
  // The launches whose Allocation page the account may open (a sales account's studio lists them).
  app.get('/api/allocation', (c) => {
    const account = c.get('account')
    if (account.role === 'editor') return refuse(c, 403, 'Allocation is for owners and sales accounts.')
    const launches = ctx.publisher
      .list()
      .filter((l) => account.role === 'owner' || account.launches === undefined || account.launches.includes(l.slug))
      .map((l) => ({ slug: l.slug, siteName: l.siteName }))
    return c.json({ launches })
  })
  const deps = (launch: ServedLaunch): AllocationDeps => ({
    release,
    clock: ctx.clock,
    siteName: launch.siteName,
    texts: liveWorksheetTexts(launch),
  })
  app.get(base, async (c) => {
    const launch = allocationLaunch(ctx, c)
    if (launch instanceof Response) return launch
    const [worksheets, lots] = await Promise.all([release.listWorksheets(launch.slug), release.listLots(launch.slug)])
    return c.json({ worksheets, lots })
  })
  app.post(`${base}/allocate`, async (c) => {
    const launch = allocationLaunch(ctx, c)
    if (launch instanceof Response) return launch
    const body = (await jsonBody(c)) ?? {}
    const [worksheetId, lot, model] = [positive(body.worksheetId), text(body.lot), text(body.model)]
    if (!worksheetId || !lot || !model) return refuse(c, 400, 'Say which worksheet, lot and model.')
    const by = c.get('account').email
    const decision = await allocateLot(deps(launch), launch.slug, { worksheetId, lot, model }, by)
    if (decision.ok) await ctx.audit(by, `allocate ${lot} (${model}) to worksheet ${worksheetId}`, launch.slug)
    return answer(c, decision)
  })
  for (const [path, outcome] of [
    ['waitlist', 'waitlisted'],
    ['decline', 'declined'],
  ] as const) {
    app.post(`${base}/${path}`, async (c) => {
      const launch = allocationLaunch(ctx, c)
      if (launch instanceof Response) return launch
      const body = (await jsonBody(c)) ?? {}
      const worksheetId = positive(body.worksheetId)
      if (!worksheetId) return refuse(c, 400, 'Say which worksheet.')
      const by = c.get('account').email
      const reason = text(body.reason) ?? ''
      const decision = await decideWorksheet(deps(launch), launch.slug, { worksheetId, outcome, reason }, by)
      if (decision.ok) await ctx.audit(by, `${path} worksheet ${worksheetId}`, launch.slug)
      return answer(c, decision)
    })
  }
  app.post(`${base}/proposals`, async (c) => {
    const launch = allocationLaunch(ctx, c)
    if (launch instanceof Response) return launch
    const [worksheets, lots] = await Promise.all([release.listWorksheets(launch.slug), release.listLots(launch.slug)])
    return c.json({ proposals: allocateInOrder(worksheets, lots) })
  })
  app.post(`${base}/confirm`, async (c) => {
    const launch = allocationLaunch(ctx, c)
    if (launch instanceof Response) return launch
    // The proposals the manager saw; each allocation is checked again by the store, so a stale one is refused alone.
    const proposals = proposalsOf((await jsonBody(c))?.proposals)
    if (!proposals) return refuse(c, 400, 'Send the proposals to confirm.')
    const by = c.get('account').email
    const outcomes = await confirmProposals(deps(launch), launch.slug, proposals, by)
    await ctx.audit(by, `allocate in order: ${outcomes.filter((o) => o.ok).length} confirmed`, launch.slug)
    return c.json({ outcomes })
  })
}

/**
 * PATCH /api/launches/:slug/lots/:lot { price?, status? }: owners and editors given the launch change a lot's price
 * and status (never to or from allocated: allocation does that); each change is in the audit log.
 */
function addLotRoute(app: Hono<StudioEnv>, ctx: StudioContext): void {
  app.patch('/api/launches/:slug/lots/:lot', async (c) => {
    const launch = launchFor(ctx, c)
    if (launch instanceof Response) return launch
    const lot = c.req.param('lot')
    const body = (await jsonBody(c)) ?? {}
    const price = body.price === undefined ? undefined : body.price
    if (price !== undefined && (typeof price !== 'number' || !Number.isSafeInteger(price) || price < 0))
      return refuse(c, 400, 'The price is a whole number of dollars, e.g. 899900.')
    const status = body.status === undefined ? undefined : (body.status as LotStatus)
    if (status !== undefined && (!lotStatuses.includes(status) || status === 'allocated'))
      return refuse(c, 400, 'The status is available, held or sold (a lot is allocated from the Allocation page).')
    const change = { ...(price === undefined ? {} : { price }), ...(status === undefined ? {} : { status }) }
    const done = await ctx.release!.updateLot(launch.slug, lot, change, ctx.clock().toISOString())
    if (!done) return refuse(c, 409, `${lot} is allocated or not in the inventory: it cannot be changed here.`)
    const what = [price === undefined ? '' : `price ${price}`, status ?? ''].filter(Boolean).join(', ')
    await ctx.audit(c.get('account').email, `change ${lot}: ${what}`, launch.slug)
    return c.json({ ok: true })
  })
}
