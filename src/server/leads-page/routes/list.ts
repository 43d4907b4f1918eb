import type { Context, Hono } from 'hono'
import type { LeadPosition, LeadSearch } from '../../store/store.ts'
import type { LeadsContext } from '../context.ts'
import { assigneeChoices, filterWords, launchChoice, scopeOf, searchOf } from '../lead-search.ts'
import { listView } from '../list-view.ts'
import { studioLink } from '../viewers.ts'
import { signInAnswer } from './sign-in.ts'

/**
 * The list (GET /leads): the registrations the session's filter asks for, newest first, a page at a time. No personal
 * data in the address: paging links carry only a lead's time and id.
 */

/** A page position as it travels in a link: base-36 milliseconds and id, nothing about the person. */
export function encodePosition(position: LeadPosition): string {
  return `${Date.parse(position.createdAt).toString(36)}-${position.id.toString(36)}`
}

/** The position of a paging link, or undefined when it is not one. */
export function decodePosition(text: string | undefined): LeadPosition | undefined {
  const match = /^([0-9a-z]{1,11})-([0-9a-z]{1,11})$/.exec(text ?? '')
  if (!match) return undefined
  const ms = parseInt(match[1]!, 36)
  const id = parseInt(match[2]!, 36)
  if (!Number.isSafeInteger(ms) || !Number.isSafeInteger(id) || ms > 8.64e15) return undefined
  return { createdAt: new Date(ms).toISOString(), id }
}

async function listPage(c: Context, ctx: LeadsContext): Promise<Response> {
  const viewer = await ctx.viewerOf(c)
  if (!viewer) return signInAnswer(c, ctx)
  const older = decodePosition(c.req.query('older'))
  const newer = older ? undefined : decodePosition(c.req.query('newer'))
  const choice = await launchChoice(ctx, viewer, viewer.filter)
  await ctx.readPhones()
  const search: LeadSearch = {
    ...searchOf(viewer.filter, choice, ctx.timeZone),
    ...scopeOf(viewer, choice),
    limit: ctx.pageSize,
    ...(older ? { from: { older } } : newer ? { from: { newer } } : {}),
  }
  const page = await ctx.store.searchLeads(search)
  const first = page.leads[0]
  const last = page.leads.at(-1)
  const which = older ? 'an older page' : newer ? 'a newer page' : 'the newest page'
  await ctx.audit({
    who: viewer.who,
    action: 'viewed the leads list',
    launch: choice.selected || undefined,
    detail: `${which}; ${filterWords(viewer, choice, viewer.filter)}; ${page.leads.length} of ${page.total} shown`,
  })
  const repeats = new Map(
    (await ctx.store.countOtherRegistrations(page.leads.map((lead) => lead.id))).map((r) => [r.leadId, r.others]),
  )
  const paging = {
    newest: !page.hasNewer,
    newer: page.hasNewer && first ? encodePosition(first) : undefined,
    older: page.hasOlder && last ? encodePosition(last) : undefined,
  }
  const extras = { assignees: await assigneeChoices(ctx), repeats }
  return c.html(listView(ctx.view, page, viewer.filter, choice, paging, studioLink(viewer), extras))
}

/** Adds the list to the leads page's app. */
export function addListRoutes(app: Hono, ctx: LeadsContext): void {
  app.get('/leads', (c) => listPage(c, ctx))
  app.get('/leads/', (c) => c.redirect('/leads', 301))
}
