import type { Context, Hono } from 'hono'
import { composeAnnouncement, type AnnouncementMailSettings } from '../delivery/announcement.ts'
import { listRecipients } from '../store/announcements.ts'
import type { AddressKey, LeadStore } from '../store/store.ts'
import { announcementLimits } from '../../../schema/phases.ts'
import { announcementsView, type AnnouncementForm, type AnnouncementPage } from './announcement-view.ts'
import type { LeadsAudit, Viewer } from './viewers.ts'
import { noticeView, type ViewContext } from './views.ts'

/**
 * Announcements to a launch's list (GET and POST /leads/announcements). Who may send: a studio account with role
 * owner or editor, or a sales account given every launch (the sales manager), each only to the launches it may see;
 * a sales account limited to some launches, and the shared LEADS_PASSWORD, may not (a message to the list is sent by a
 * person the audit log names). A send queues one 'announcement' message per registrant who may receive marketing now
 * (AnnouncementStore.listMarketableLeads, one per address, never an address on the suppression list) in one
 * transaction, and the outbox sends them. The test copy goes to the signed-in account's own address through the outbox
 * too (a message of no lead), so a mail server that is down delays it rather than losing it.
 */

/** What sending announcements needs from the entry; absent: the page says announcements are off. */
export type AnnouncementDeps = {
  /** The launch's mail settings (its reply's sender and unsubscribe words, its link secret), or undefined without a reply. */
  mailOf(launch: string): AnnouncementMailSettings | undefined
  /** The suppression list's key of an address (suppression.ts). */
  suppressionKeyOf(email: string): Promise<AddressKey>
}

/** What the announcements' routes use of the leads page. */
export type AnnouncementsContext = {
  store: Pick<
    LeadStore,
    'isSuppressed' | 'listMarketableLeads' | 'saveAnnouncement' | 'queueTestAnnouncement' | 'listAnnouncements'
  >
  deps: AnnouncementDeps | undefined
  audit: LeadsAudit
  view: ViewContext
  clock: () => Date
  onQueued?: (() => void) | undefined
  viewerOf(c: Context): Promise<Viewer | undefined>
  mayView(viewer: Viewer, launch: string): boolean
  studioLink(viewer: Viewer): boolean
}

/** Whether a viewer may send announcements at all: an owner or editor account, or a sales account given every launch. */
export function maySendAnnouncements(viewer: Viewer): boolean {
  const account = viewer.account
  if (!account) return false
  return account.role === 'owner' || account.role === 'editor' || account.launches === undefined
}

const path = '/leads/announcements'

/** Adds the announcements page to the leads page's app. */
export function addAnnouncementRoutes(app: Hono, ctx: AnnouncementsContext): void {
  const { store, view } = ctx

  /** The viewer, or the answer for someone not signed in or not allowed to send. */
  async function senderOf(c: Context): Promise<Viewer | Response> {
    const viewer = await ctx.viewerOf(c)
    if (!viewer) return c.redirect('/leads', 303)
    if (!maySendAnnouncements(viewer)) {
      await ctx.audit({ who: viewer.who, action: 'refused the announcements page' })
      const text = viewer.account
        ? 'Announcements are sent by an owner or editor, or by a sales account given every launch. Ask an owner of the studio.'
        : 'Announcements are sent by a person signed in to the studio, not with the shared team password. Sign in with your own account.'
      return c.html(noticeView(view, 'Not yours to send', text, ctx.studioLink(viewer)), 403)
    }
    return viewer
  }

  /** The launches this viewer may send to: theirs, each with a reply (its sender and unsubscribe words). */
  const launchesOf = (viewer: Viewer) =>
    view.launches.filter((launch) => ctx.mayView(viewer, launch.slug) && ctx.deps?.mailOf(launch.slug) !== undefined)

  async function page(
    c: Context,
    viewer: Viewer,
    form: AnnouncementForm,
    extra: Partial<AnnouncementPage> = {},
    status: 200 | 400 | 403 = 200,
  ): Promise<Response> {
    const launches = launchesOf(viewer)
    const past = await store.listAnnouncements(viewer.launches)
    const shown: AnnouncementPage = {
      launches,
      form: { ...form, launch: form.launch || launches[0]?.slug || '' },
      past,
      ...extra,
    }
    return c.html(announcementsView(view, shown, ctx.studioLink(viewer)), status)
  }

  /** The registrants of a launch who may receive marketing now (store/announcements.ts, as at a phase's start). */
  const recipientsOf = (launch: string, now: Date) => listRecipients(store, launch, now, ctx.deps!.suppressionKeyOf)

  app.get(path, async (c) => {
    const viewer = await senderOf(c)
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
    return page(c, viewer, { launch: '', subject: '', text: '', key: crypto.randomUUID() }, { notice })
  })

  app.post(path, async (c) => {
    const viewer = await senderOf(c)
    if (viewer instanceof Response) return viewer
    const body = await c.req.parseBody()
    const read = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '')
    const givenKey = read('key')
    const key = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(givenKey)
      ? givenKey
      : crypto.randomUUID()
    const form: AnnouncementForm = {
      launch: read('launch').trim(),
      subject: read('subject').trim(),
      text: read('text').replace(/\r\n?/g, '\n').trim(),
      key,
    }
    const action = read('action')
    const problem = (text: string, status: 400 | 403 = 400) =>
      page(c, viewer, form, { notice: { kind: 'error', text } }, status)
    if (!ctx.mayView(viewer, form.launch)) {
      await ctx.audit({
        who: viewer.who,
        action: 'refused an announcement to a launch the account is not given',
        launch: form.launch.slice(0, 80),
      })
      return problem('You may not send to that launch: choose one of the launches in the list.', 403)
    }
    const settings = ctx.deps?.mailOf(form.launch)
    if (!settings)
      return problem(
        'That launch has no reply in its page.config.json, so it has no sender or unsubscribe words: choose another launch.',
      )
    if (form.subject === '' || form.text === '') return problem('Write a subject and a message first.')
    if (form.subject.length > announcementLimits.subject)
      return problem(
        `A subject can be at most ${announcementLimits.subject} characters: this one has ${form.subject.length}.`,
      )
    if (form.text.length > announcementLimits.text)
      return problem(
        `A message can be at most ${announcementLimits.text} characters: this one has ${form.text.length}. Shorten it.`,
      )
    if (/[\p{Cc}\p{Cf}]/u.test(form.subject) || /[\p{Cf}]|[^\P{Cc}\n\t]/u.test(form.text))
      return problem('Remove the invisible or control characters from the subject or message.')
    const now = ctx.clock()

    if (action === 'test') {
      const to = viewer.account!.email
      const mail = await composeAnnouncement(form, 'test', { testTo: to }, settings)
      if (!mail) return problem("Your account's address cannot receive mail: ask an owner to check it.")
      await store.queueTestAnnouncement(mail, now)
      ctx.onQueued?.()
      await ctx.audit({ who: viewer.who, action: 'sent a test announcement to themselves', launch: form.launch })
      return page(c, viewer, form, {
        notice: { kind: 'info', text: `A test copy is on its way to ${to}: it should arrive within a few minutes.` },
      })
    }
    if (action === 'send') {
      // The same form sent again (a double click, a reload of the answer): it went once already.
      const sentBefore = async () =>
        (await store.listAnnouncements(viewer.launches)).find((announcement) => announcement.key === key)
      const already = await sentBefore()
      if (already) return c.redirect(`${path}?queued=${already.recipients}`, 303)
      const recipients = await recipientsOf(form.launch, now)
      if (recipients.length === 0)
        return problem('No registrant of this launch may receive marketing now: nothing was sent.')
      const messages = []
      for (const lead of recipients) {
        const mail = await composeAnnouncement(
          form,
          key,
          { email: String(lead.fields.email), submissionId: lead.submissionId },
          settings,
        )
        if (mail) messages.push({ leadId: lead.id, mail })
      }
      const author = viewer.account!.email
      let saved: { id: number; recipients: number }
      try {
        saved = await store.saveAnnouncement(
          { key, launch: form.launch, subject: form.subject, text: form.text, author, createdAt: now.toISOString() },
          messages,
        )
      } catch (error) {
        // Two clicks at once: the key is unique, so the second insert is refused and nothing of it is kept.
        const first = await sentBefore()
        if (first) return c.redirect(`${path}?queued=${first.recipients}`, 303)
        throw error
      }
      await ctx.audit({
        who: viewer.who,
        action: 'sent an announcement',
        launch: form.launch,
        detail: `announcement ${saved.id} to ${saved.recipients} registrants`,
      })
      ctx.onQueued?.()
      return c.redirect(`${path}?queued=${saved.recipients}`, 303)
    }
    const sample = await composeAnnouncement(form, 'preview', { testTo: viewer.account!.email }, settings)
    const preview = sample && { ...sample, subject: form.subject }
    return page(c, viewer, form, { preview, eligible: (await recipientsOf(form.launch, now)).length })
  })
}
