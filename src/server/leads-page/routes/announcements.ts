import type { Context, Hono } from 'hono'
import { composeAnnouncement, type AnnouncementMailSettings } from '../../delivery/announcement.ts'
import { announcementsView, type AnnouncementForm, type AnnouncementPage } from '../announcement-view.ts'
import {
  announcementProblem,
  maySendAnnouncements,
  readAnnouncementForm,
  recipientsOf,
  sendAnnouncement,
  sendTestAnnouncement,
} from '../announcements.ts'
import type { LeadsContext } from '../context.ts'
import { mayView, studioLink, type Viewer } from '../viewers.ts'
import { noticeView } from '../views.ts'

/**
 * The Announcements tab (GET and POST /leads/announcements): the form, its preview, a test copy to oneself, the send
 * to a launch's list, and the announcements sent before. Who may send, and how a send goes: announcements.ts.
 */

const path = '/leads/announcements'

/** The viewer, or the answer for someone not signed in or not allowed to send. */
async function senderOf(c: Context, ctx: LeadsContext): Promise<Viewer | Response> {
  const viewer = await ctx.viewerOf(c)
  if (!viewer) return c.redirect('/leads', 303)
  if (!maySendAnnouncements(viewer)) {
    await ctx.audit({ who: viewer.who, action: 'refused the announcements page' })
    const text = viewer.account
      ? 'Announcements are sent by an owner or editor, or by a sales account given every launch. Ask an owner of the studio.'
      : 'Announcements are sent by a person signed in to the studio, not with the shared team password. Sign in with your own account.'
    return c.html(noticeView(ctx.view, 'Not yours to send', text, studioLink(viewer)), 403)
  }
  return viewer
}

/** The page, with the form as sent and what to say about it. */
async function page(
  c: Context,
  ctx: LeadsContext,
  viewer: Viewer,
  form: AnnouncementForm,
  extra: Partial<AnnouncementPage> = {},
  status: 200 | 400 | 403 = 200,
): Promise<Response> {
  // The launches this viewer may send to: theirs, each with a reply (its sender and unsubscribe words).
  const launches = ctx.view.launches.filter(
    (launch) => mayView(viewer, launch.slug) && ctx.announcements?.mailOf(launch.slug) !== undefined,
  )
  const past = await ctx.store.listAnnouncements(viewer.launches)
  const shown: AnnouncementPage = {
    launches,
    form: { ...form, launch: form.launch || launches[0]?.slug || '' },
    past,
    ...extra,
  }
  return c.html(announcementsView(ctx.view, shown, studioLink(viewer)), status)
}

/** The launch's mail settings when the viewer may send to it and it can send; else the refusal's answer. */
async function settingsFor(
  c: Context,
  ctx: LeadsContext,
  viewer: Viewer,
  form: AnnouncementForm,
): Promise<AnnouncementMailSettings | Response> {
  const problem = (text: string, status: 400 | 403 = 400) =>
    page(c, ctx, viewer, form, { notice: { kind: 'error', text } }, status)
  if (!mayView(viewer, form.launch)) {
    await ctx.audit({
      who: viewer.who,
      action: 'refused an announcement to a launch the account is not given',
      launch: form.launch.slice(0, 80),
    })
    return problem('You may not send to that launch: choose one of the launches in the list.', 403)
  }
  const settings = ctx.announcements?.mailOf(form.launch)
  if (!settings)
    return problem(
      'That launch has no reply in its page.config.json, so it has no sender or unsubscribe words: choose another launch.',
    )
  const wrong = announcementProblem(form)
  return wrong ? problem(wrong) : settings
}

/** A preview, a test copy to oneself, or the send, as the form's button asks. */
async function sendOrPreview(c: Context, ctx: LeadsContext): Promise<Response> {
  const viewer = await senderOf(c, ctx)
  if (viewer instanceof Response) return viewer
  const body = await c.req.parseBody()
  const form = readAnnouncementForm(body)
  const settings = await settingsFor(c, ctx, viewer, form)
  if (settings instanceof Response) return settings
  const now = ctx.clock()
  const notice = (kind: 'info' | 'error', text: string) =>
    page(c, ctx, viewer, form, { notice: { kind, text } }, kind === 'error' ? 400 : 200)
  if (body.action === 'test') {
    const sent = await sendTestAnnouncement(ctx, viewer, form, settings, now)
    if ('problem' in sent) return notice('error', sent.problem)
    return notice('info', `A test copy is on its way to ${sent.to}: it should arrive within a few minutes.`)
  }
  if (body.action === 'send') {
    const sent = await sendAnnouncement(ctx, viewer, form, settings, now, body.confirm === 'yes')
    if ('problem' in sent && sent.limited) {
      const refusal = { notice: { kind: 'error' as const, text: sent.problem }, confirm: sent.limited.mayConfirm }
      return page(c, ctx, viewer, form, refusal, 403)
    }
    if ('problem' in sent) return notice('error', sent.problem)
    return c.redirect(`${path}?queued=${sent.queued}`, 303)
  }
  const sample = await composeAnnouncement(form, 'preview', { testTo: viewer.account!.email }, settings)
  const preview = sample && { ...sample, subject: form.subject }
  return page(c, ctx, viewer, form, { preview, eligible: (await recipientsOf(ctx, form.launch, now)).length })
}

/** Adds the announcements page to the leads page's app. */
export function addAnnouncementRoutes(app: Hono, ctx: LeadsContext): void {
  app.get(path, async (c) => {
    const viewer = await senderOf(c, ctx)
    if (viewer instanceof Response) return viewer
    const queued = Number(c.req.query('queued'))
    await ctx.audit({ who: viewer.who, action: 'viewed the announcements' })
    const notice =
      Number.isInteger(queued) && queued >= 0 && c.req.query('queued') !== undefined
        ? {
            kind: 'info' as const,
            text: `The announcement is on its way to ${queued} registrant${queued === 1 ? '' : 's'}.`,
          }
        : undefined
    return page(c, ctx, viewer, { launch: '', subject: '', text: '', key: crypto.randomUUID() }, { notice })
  })

  app.post(path, (c) => sendOrPreview(c, ctx))
}
