import type { Hono } from 'hono'
import { dayStart } from '../../store/days.ts'
import type { LeadsContext } from '../context.ts'
import { statusesOf } from '../filter-view.ts'
import { launchChoice } from '../lead-search.ts'
import { emptyFilter } from '../sessions.ts'

/**
 * The list's search and filters (POST /leads/search): the text and the filters are kept in the server-side session,
 * never in a URL, and the answer is a redirect to GET /leads. "Show all" (clear) empties them.
 */

/** Adds the search to the leads page's app. */
export function addSearchRoutes(app: Hono, ctx: LeadsContext): void {
  app.post('/leads/search', async (c) => {
    const viewer = await ctx.viewerOf(c)
    if (!viewer) return c.redirect('/leads', 303)
    const body = await c.req.parseBody()
    const field = (name: string, max = 200) => {
      const value = body[name]
      return body.clear || typeof value !== 'string' ? '' : value.trim().slice(0, max)
    }
    // Only a launch there is and the viewer may see: anything else (a stale or forged value) means all of theirs.
    const choice = await launchChoice(ctx, viewer, { ...emptyFilter, launch: field('launch') })
    // A status none of the launches in view has, or a day that is not one, narrows nothing.
    const status = statusesOf(choice).includes(field('status')) ? field('status') : ''
    const realtor = field('realtor') === 'yes' || field('realtor') === 'no' ? (field('realtor') as 'yes' | 'no') : ''
    const day = (name: string) => (dayStart(field(name), ctx.timeZone) ? field(name) : '')
    await viewer.saveFilter({
      text: field('text'),
      launch: choice.selected,
      status,
      assignee: field('assignee'),
      realtor,
      from: day('from'),
      to: day('to'),
    })
    return c.redirect('/leads', 303)
  })
}
