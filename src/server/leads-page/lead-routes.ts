import type { Context, Hono } from 'hono'
import { composeLeadUpdate } from '../delivery/webhook.ts'
import type { FollowUpKind } from '../store/follow-up.ts'
import { notificationStateOf, type LeadStore, type StoredLead } from '../store/store.ts'
import type { AssigneeChoice } from './filter-view.ts'
import { leadView, type AssignWays } from './lead-view.ts'
import type { LeadsAudit, StudioSignIn, Viewer } from './viewers.ts'
import { assigneeLabel, launchOf, noticeView, type ViewContext } from './views.ts'

/**
 * A lead's own page (GET /leads/lead/<id>) and its follow-up (POST …/status, …/assignee, …/note): each change is one
 * plain form POST that records the change and its history line (and queues a signed lead.updated webhook call when
 * WEBHOOK_URL is set), writes an audit line, and answers with a redirect back to the lead's page.
 */

/** What the lead's routes use of the leads page. */
export type LeadRoutesContext = {
  store: Pick<
    LeadStore,
    | 'listLeads'
    | 'listMessages'
    | 'recordFollowUp'
    | 'followUpOf'
    | 'otherRegistrationsOf'
    | 'agentRegistrationOf'
    | 'listLeadAnnouncements'
    | 'documentOpeningsOf'
  >
  audit: LeadsAudit
  studio?: StudioSignIn | undefined
  view: ViewContext
  clock: () => Date
  /** Queue a lead.updated webhook call with each change (WEBHOOK_URL is set), then call `onQueued`. */
  webhook: boolean
  onQueued?: (() => void) | undefined
  viewerOf(c: Context): Promise<Viewer | undefined>
  mayView(viewer: Viewer, launch: string): boolean
  studioLink(viewer: Viewer): boolean
  /** Reads the phones of leads not read yet (E.164), before the same person's registrations are looked for. */
  readPhones(): Promise<void>
}

const leadPath = '/leads/lead/:id{[0-9]{1,15}}'
const noteLength = 1000
const assigneeLength = 80

/** Who made a change, as the history shows it: the account's e-mail, or the team's shared password. */
const authorOf = (viewer: Viewer) => viewer.account?.email ?? 'Team password'

/** Adds the lead's page and its follow-up forms to the leads page's app. */
export function addLeadRoutes(app: Hono, ctx: LeadRoutesContext): void {
  const { store, view } = ctx

  /** The accounts a lead of `launch` may be assigned to, or free text where the studio has no accounts. */
  async function assignWays(launch: string): Promise<AssignWays> {
    if (!ctx.studio?.assignable || !(await ctx.studio.hasAccounts())) return { kind: 'text' }
    const accounts = await ctx.studio.assignable()
    const people: AssigneeChoice[] = accounts
      .filter((account) => account.launches === undefined || account.launches.includes(launch))
      .map((account) => ({ value: account.email, label: assigneeLabel(view, account.email) }))
    return { kind: 'accounts', people }
  }

  /** The lead of the request, or the answer to give instead (sign-in, not there, not this account's launch). */
  async function leadOf(c: Context): Promise<{ viewer: Viewer; lead: StoredLead } | Response> {
    const viewer = await ctx.viewerOf(c)
    if (!viewer) return c.redirect('/leads', 303)
    const id = Number(c.req.param('id'))
    const [stored] = id > 0 ? await store.listLeads(id - 1, 1) : []
    if (!stored || stored.id !== id) {
      return c.html(
        noticeView(
          view,
          'No such registration',
          `There is no registration ${id}: it may have been erased.`,
          ctx.studioLink(viewer),
        ),
        404,
      )
    }
    if (!ctx.mayView(viewer, stored.launch)) {
      await ctx.audit({
        who: viewer.who,
        action: 'refused a lead of a launch the account is not given',
        launch: stored.launch,
        detail: `lead ${id}`,
      })
      return c.html(
        noticeView(
          view,
          'Not your launch',
          'This registration is for a launch your account is not given. An owner of the studio can add it.',
          ctx.studioLink(viewer),
        ),
        403,
      )
    }
    return { viewer, lead: stored }
  }

  async function leadPage(c: Context, viewer: Viewer, stored: StoredLead, problem?: string): Promise<Response> {
    await ctx.readPhones()
    const [messages, followUp, others, assign, agent, announcements, documents] = await Promise.all([
      store.listMessages({ leadId: stored.id, limit: 20 }),
      store.followUpOf(stored.id),
      store.otherRegistrationsOf(stored.id),
      assignWays(stored.launch),
      store.agentRegistrationOf(stored.id),
      store.listLeadAnnouncements(stored.id),
      store.documentOpeningsOf([stored.id]),
    ])
    const notification = messages.find((message) => message.kind === 'notification')
    const lead = {
      ...stored,
      notification: notification
        ? notificationStateOf(notification.status, notification.attempts)
        : notificationStateOf(null, null),
    }
    // Registrations of launches this viewer is not given are counted by launch, never shown.
    const visible = others.filter((other) => ctx.mayView(viewer, other.launch))
    const hiddenLaunches = new Set(
      others.filter((other) => !ctx.mayView(viewer, other.launch)).map((other) => other.launch),
    ).size
    return c.html(
      leadView(view, lead, ctx.studioLink(viewer), {
        followUp,
        others: visible,
        hiddenLaunches,
        assign,
        agent,
        problem,
        announcements,
        documents,
      }),
      problem ? 400 : 200,
    )
  }

  // A lead by its number (never anything personal in the address); another launch's lead is refused to an account
  // that is not given that launch.
  app.get(leadPath, async (c) => {
    const found = await leadOf(c)
    if (found instanceof Response) return found
    await ctx.audit({
      who: found.viewer.who,
      action: 'viewed a lead',
      launch: found.lead.launch,
      detail: `lead ${found.lead.id}`,
    })
    return leadPage(c, found.viewer, found.lead)
  })

  /** The value a change form sent, or the words that say what is wrong with it. */
  async function valueOf(
    kind: FollowUpKind,
    lead: StoredLead,
    body: Record<string, unknown>,
  ): Promise<{ value: string } | { problem: string }> {
    const sent = typeof body[kind] === 'string' ? (body[kind] as string).trim() : ''
    if (kind === 'status') {
      const statuses = launchOf(view.launches, lead.launch).statuses
      return statuses.includes(sent)
        ? { value: sent }
        : { problem: `Choose one of the statuses: ${statuses.join(', ')}.` }
    }
    if (kind === 'note') {
      if (sent === '') return { problem: 'Write the note first, then choose Add note.' }
      if (sent.length > noteLength)
        return {
          problem: `A note can be at most ${noteLength} characters: this one has ${sent.length}. Shorten it or split it in two.`,
        }
      return { value: sent }
    }
    const ways = await assignWays(lead.launch)
    if (ways.kind === 'accounts') {
      // The one it has now stays a choice (a salesperson of the launch's roster, assigned in turn, may have no account).
      const current = sent !== '' && (await store.followUpOf(lead.id, 0)).assignee === sent
      return sent === '' || current || ways.people.some((p) => p.value === sent)
        ? { value: sent }
        : { problem: 'Choose a salesperson from the list (or Nobody).' }
    }
    if (sent.length > assigneeLength || /\p{Cc}/u.test(sent))
      return { problem: `Type a name of at most ${assigneeLength} characters (or leave it empty for nobody).` }
    return { value: sent }
  }

  const auditWords: Record<FollowUpKind, string> = {
    status: "changed a lead's status",
    assignee: 'assigned a lead',
    note: 'added a note to a lead',
  }

  app.post(`${leadPath}/:kind{status|assignee|note}`, async (c) => {
    const found = await leadOf(c)
    if (found instanceof Response) return found
    const { viewer, lead } = found
    const kind = c.req.param('kind') as FollowUpKind
    const checked = await valueOf(kind, lead, await c.req.parseBody())
    if ('problem' in checked) return leadPage(c, viewer, lead, checked.problem)
    const at = ctx.clock().toISOString()
    const author = authorOf(viewer)
    let webhook
    if (ctx.webhook) {
      const now = await store.followUpOf(lead.id, 0)
      const launch = launchOf(view.launches, lead.launch)
      webhook = composeLeadUpdate({
        eventId: crypto.randomUUID(),
        lead: { submissionId: lead.submissionId, launch: lead.launch },
        siteName: launch.siteName,
        change: { kind, value: checked.value },
        status: kind === 'status' ? checked.value : (now.status ?? launch.statuses[0] ?? 'New'),
        assignee: kind === 'assignee' ? checked.value : now.assignee,
        by: author,
        at,
      })
    }
    const entry = await store.recordFollowUp({ leadId: lead.id, kind, value: checked.value, author, at, webhook })
    if (entry) {
      // The status and the assignee are the team's own words; a note's text is never written to the audit log.
      const detail =
        kind === 'note'
          ? `lead ${lead.id} (the note's text is not recorded)`
          : `lead ${lead.id}: ${checked.value || 'nobody'}`
      await ctx.audit({ who: viewer.who, action: auditWords[kind], launch: lead.launch, detail })
      if (webhook) ctx.onQueued?.()
    }
    return c.redirect(`/leads/lead/${lead.id}`, 303)
  })
}
