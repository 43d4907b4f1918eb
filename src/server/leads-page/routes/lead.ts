import type { Context, Hono } from 'hono'
import { notificationStateOf, type StoredLead } from '../../store/store.ts'
import type { LeadsContext } from '../context.ts'
import type { AssigneeChoice } from '../filter-view.ts'
import { leadView, type AssignWays } from '../lead-view.ts'
import { mayView, studioLink, type Viewer } from '../viewers.ts'
import { assigneeName, launchOf, noticeView } from '../views.ts'

/**
 * A lead's own page (GET /leads/lead/<id>): its answers, where its follow-up stands and the forms to change it
 * (routes/follow-up.ts), its messages, the same person's other registrations, its announcements and documents opened.
 * A lead by its number (never anything personal in the address); another launch's lead is refused to an account that
 * is not given that launch.
 */

/** The address of a lead's page; its follow-up forms post below it. */
export const leadPath = '/leads/lead/:id{[0-9]{1,15}}'

/**
 * Who a lead of `launch` may be assigned to: the launch's roster (in its order), then the studio's accounts given the
 * launch, each by name; free text only where there is neither.
 */
export async function assignWays(ctx: LeadsContext, launch: string): Promise<AssignWays> {
  const roster = [...(launchOf(ctx.view.launches, launch).people?.keys() ?? [])]
  const studio = ctx.studio?.assignable && (await ctx.studio.hasAccounts()) ? ctx.studio : undefined
  const accounts = studio?.assignable
    ? (await studio.assignable())
        .filter((account) => account.launches === undefined || account.launches.includes(launch))
        .map((account) => account.email)
    : []
  if (!studio && roster.length === 0) return { kind: 'text' }
  const people: AssigneeChoice[] = [...new Set([...roster, ...accounts])].map((value) => ({
    value,
    label: assigneeName(ctx.view, value),
  }))
  return { kind: 'accounts', people }
}

/** The lead of the request, or the answer to give instead (sign-in, not there, not this account's launch). */
export async function leadOf(c: Context, ctx: LeadsContext): Promise<{ viewer: Viewer; lead: StoredLead } | Response> {
  const viewer = await ctx.viewerOf(c)
  if (!viewer) return c.redirect('/leads', 303)
  const id = Number(c.req.param('id'))
  const [stored] = id > 0 ? await ctx.store.listLeads(id - 1, 1) : []
  if (!stored || stored.id !== id) {
    const text = `There is no registration ${id}: it may have been erased.`
    return c.html(noticeView(ctx.view, 'No such registration', text, studioLink(viewer)), 404)
  }
  if (!mayView(viewer, stored.launch)) {
    await ctx.audit({
      who: viewer.who,
      action: 'refused a lead of a launch the account is not given',
      launch: stored.launch,
      detail: `lead ${id}`,
    })
    const text = 'This registration is for a launch your account is not given. An owner of the studio can add it.'
    return c.html(noticeView(ctx.view, 'Not your launch', text, studioLink(viewer)), 403)
  }
  return { viewer, lead: stored }
}

/** The lead's page, with the problem of a change form that was refused (then answered 400). */
export async function leadPage(
  c: Context,
  ctx: LeadsContext,
  found: { viewer: Viewer; lead: StoredLead },
  problem?: string,
): Promise<Response> {
  const { viewer, lead: stored } = found
  const { store } = ctx
  await ctx.readPhones()
  const [messages, followUp, others, assign, agent, announcements, documents] = await Promise.all([
    store.listMessages({ leadId: stored.id, limit: 20 }),
    store.followUpOf(stored.id),
    store.otherRegistrationsOf(stored.id),
    assignWays(ctx, stored.launch),
    store.agentRegistrationOf(stored.id),
    store.listLeadAnnouncements(stored.id),
    store.documentOpeningsOf([stored.id]),
  ])
  const worksheets = ctx.worksheets ? await ctx.worksheets.listWorksheets(stored.launch, stored.id) : []
  const notification = messages.find((message) => message.kind === 'notification')
  const lead = {
    ...stored,
    notification: notification
      ? notificationStateOf(notification.status, notification.attempts)
      : notificationStateOf(null, null),
  }
  // Registrations of launches this viewer is not given are counted by launch, never shown.
  const visible = others.filter((other) => mayView(viewer, other.launch))
  const hidden = new Set(others.filter((other) => !mayView(viewer, other.launch)).map((other) => other.launch))
  const extras = {
    followUp,
    others: visible,
    hiddenLaunches: hidden.size,
    assign,
    agent,
    problem,
    announcements,
    documents,
    worksheets,
  }
  return c.html(leadView(ctx.view, lead, studioLink(viewer), extras), problem ? 400 : 200)
}

/** Adds the lead's page to the leads page's app. */
export function addLeadRoutes(app: Hono, ctx: LeadsContext): void {
  app.get(leadPath, async (c) => {
    const found = await leadOf(c, ctx)
    if (found instanceof Response) return found
    const { viewer, lead } = found
    await ctx.audit({ who: viewer.who, action: 'viewed a lead', launch: lead.launch, detail: `lead ${lead.id}` })
    return leadPage(c, ctx, found)
  })
}
