import type { Hono } from 'hono'
import { composeLeadUpdate } from '../../delivery/webhook.ts'
import type { FollowUpKind } from '../../store/follow-up.ts'
import type { StoredLead } from '../../store/store.ts'
import type { LeadsContext } from '../context.ts'
import type { Viewer } from '../viewers.ts'
import { launchOf } from '../views.ts'
import { assignWays, leadOf, leadPage, leadPath } from './lead.ts'

/**
 * A lead's follow-up (POST /leads/lead/<id>/status, …/assignee, …/note): each change is one plain form POST that
 * records the change and its history line (and queues a signed lead.updated webhook call when WEBHOOK_URL is set),
 * writes an audit line, and answers with a redirect back to the lead's page.
 */

const noteLength = 1000
const assigneeLength = 80

/** Who made a change, as the history shows it: the account's e-mail, or the team's shared password. */
const authorOf = (viewer: Viewer) => viewer.account?.email ?? 'Team password'

const auditWords: Record<FollowUpKind, string> = {
  status: "changed a lead's status",
  assignee: 'assigned a lead',
  note: 'added a note to a lead',
}

/** The value a change form sent, or the words that say what is wrong with it. */
async function valueOf(
  ctx: LeadsContext,
  kind: FollowUpKind,
  lead: StoredLead,
  body: Record<string, unknown>,
): Promise<{ value: string } | { problem: string }> {
  const given = body[kind]
  const sent = typeof given === 'string' ? given.trim() : ''
  if (kind === 'status') {
    const statuses = launchOf(ctx.view.launches, lead.launch).statuses
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
  const ways = await assignWays(ctx, lead.launch)
  if (ways.kind === 'accounts') {
    // The one it has now stays a choice (a salesperson of the launch's roster, assigned in turn, may have no account).
    const current = sent !== '' && (await ctx.store.followUpOf(lead.id, 0)).assignee === sent
    return sent === '' || current || ways.people.some((p) => p.value === sent)
      ? { value: sent }
      : { problem: 'Choose a salesperson from the list (or Nobody).' }
  }
  if (sent.length > assigneeLength || /\p{Cc}/u.test(sent))
    return { problem: `Type a name of at most ${assigneeLength} characters (or leave it empty for nobody).` }
  return { value: sent }
}

/** The signed lead.updated call a change queues (WEBHOOK_URL is set): the lead's follow-up as it is after it. */
async function webhookOf(
  ctx: LeadsContext,
  lead: StoredLead,
  change: { kind: FollowUpKind; value: string; by: string; at: string },
) {
  const now = await ctx.store.followUpOf(lead.id, 0)
  const launch = launchOf(ctx.view.launches, lead.launch)
  return composeLeadUpdate({
    eventId: crypto.randomUUID(),
    lead: { submissionId: lead.submissionId, launch: lead.launch },
    siteName: launch.siteName,
    change: { kind: change.kind, value: change.value },
    status: change.kind === 'status' ? change.value : (now.status ?? launch.statuses[0] ?? 'New'),
    assignee: change.kind === 'assignee' ? change.value : now.assignee,
    by: change.by,
    at: change.at,
  })
}

/** Adds the follow-up forms of a lead to the leads page's app. */
export function addFollowUpRoutes(app: Hono, ctx: LeadsContext): void {
  app.post(`${leadPath}/:kind{status|assignee|note}`, async (c) => {
    const found = await leadOf(c, ctx)
    if (found instanceof Response) return found
    const { viewer, lead } = found
    const kind = c.req.param('kind') as FollowUpKind
    const checked = await valueOf(ctx, kind, lead, await c.req.parseBody())
    if ('problem' in checked) return leadPage(c, ctx, found, checked.problem)
    const at = ctx.clock().toISOString()
    const author = authorOf(viewer)
    const webhook = ctx.webhook ? await webhookOf(ctx, lead, { kind, value: checked.value, by: author, at }) : undefined
    const entry = await ctx.store.recordFollowUp({ leadId: lead.id, kind, value: checked.value, author, at, webhook })
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
