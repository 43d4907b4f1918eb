import { html } from 'hono/html'
import type { HtmlEscapedString } from 'hono/utils/html'
import { announcementLimits } from '../../../schema/phases.ts'
import type { Announcement } from '../store/announcements.ts'
import type { OutgoingMail } from '../store/store.ts'
import { bar, layout, localTime, tabs, titleOf, type LeadsPageLaunch, type ViewContext } from './views.ts'

/**
 * The announcements page (/leads/announcements): one plain form (launch, subject, text) with three buttons (Preview,
 * Send a test to me, Send to the list), the mail as it will look, and the announcements sent so far with how many
 * each went to. Works without script: every button posts the form.
 */

type Html = HtmlEscapedString | Promise<HtmlEscapedString>

/** What the form holds (kept when the page comes back with a preview or a problem). */
/** `key`: made when the form is first shown and sent with it, so a double click or a reload sends it once. */
export type AnnouncementForm = { launch: string; subject: string; text: string; key: string }

/** What the page shows besides the form. */
export type AnnouncementPage = {
  /** The launches this viewer may send to (each with its sender and unsubscribe words). */
  launches: LeadsPageLaunch[]
  form: AnnouncementForm
  past: Announcement[]
  /** How many registrants of the form's launch may receive it now (a preview says so before sending). */
  eligible?: number | undefined
  preview?: OutgoingMail | undefined
  notice?: { kind: 'info' | 'error'; text: string } | undefined
  /** The daily limit stopped an owner: the form offers to confirm a second announcement today. */
  confirm?: boolean | undefined
}

/** The longest subject and text an announcement may have: a short message, not a newsletter. */
function pastList(view: ViewContext, past: Announcement[]): Html {
  if (past.length === 0) return html`<p>No announcements sent yet.</p>`
  const siteName = (slug: string) => view.launches.find((launch) => launch.slug === slug)?.siteName ?? slug
  // A list, not a table: it reads the same on a phone.
  return html`<ol class="lp-history">
${past.map(
  (a) => html`<li class="lp-history-entry">
<p class="lp-history-what"><strong>${a.subject}</strong> · ${siteName(a.launch)}</p>
<p class="lp-announcement-count">Went to ${a.recipients} registrant${a.recipients === 1 ? '' : 's'}${a.sent < a.recipients ? ` (${a.sent} sent so far)` : ''}</p>
<p class="lp-history-meta"><time datetime="${a.createdAt}">${localTime(a.createdAt, view.timeZone)}</time> · ${a.author}</p>
</li>`,
)}
</ol>`
}

function previewSection(page: AnnouncementPage): Html | string {
  const mail = page.preview
  if (!mail) return ''
  return html`<section class="lp-section" aria-labelledby="preview">
<h2 id="preview">Preview</h2>
<p>${page.eligible === undefined ? '' : page.eligible === 0 ? 'No registrant of this launch may receive marketing now.' : `It would go to ${page.eligible} registrant${page.eligible === 1 ? '' : 's'} who may receive marketing now (express consent, or implied consent not yet ended; never the unsubscribed).`}</p>
<dl class="lp-pairs">
<div><dt>From</dt><dd>${mail.fromName ?? ''}</dd></div>
<div><dt>Subject</dt><dd>${mail.subject}</dd></div>
</dl>
<pre class="lp-mail-preview">${mail.text}</pre>
</section>`
}

/** The announcements page. */
export function announcementsView(view: ViewContext, page: AnnouncementPage, studio: boolean): Html {
  const title = titleOf(view)
  const { form, notice } = page
  const problem = notice?.kind === 'error'
  return layout(
    `Announcements · Leads · ${title}`,
    html`${bar(title, studio)}
<main class="lp-main">
${tabs('announcements')}
<h1>Announcements</h1>
<p>Write a short message to a launch's list. It goes only to registrants who may receive marketing: those who ticked the updates box, and those who registered less than six months ago. Each message carries the registrant's own unsubscribe link.</p>
${notice ? html`<p id="announcement-notice" class="lp-notice ${problem ? 'lp-notice-error' : 'lp-notice-info'}" role="${problem ? 'alert' : 'status'}">${notice.text}</p>` : ''}
${
  page.launches.length === 0
    ? html`<p>No launch you may send to has a reply in its page.config.json: an announcement needs the reply's sender and unsubscribe words.</p>`
    : html`<form method="post" action="/leads/announcements" class="lp-follow-form">
<input type="hidden" name="key" value="${form.key}">
<label for="announcement-launch">Launch</label>
<select id="announcement-launch" name="launch">
${page.launches.map((launch) => html`<option value="${launch.slug}"${launch.slug === form.launch ? ' selected' : ''}>${launch.siteName}</option>`)}
</select>
<label for="announcement-subject">Subject</label>
<input id="announcement-subject" name="subject" type="text" value="${form.subject}" maxlength="${announcementLimits.subject}" required${problem ? html` aria-describedby="announcement-notice"` : ''}>
<label for="announcement-text">Message (plain text; a blank line starts a new paragraph)</label>
<textarea id="announcement-text" name="text" rows="6" maxlength="${announcementLimits.text}" required>${form.text}</textarea>
${page.confirm ? html`<label><input type="checkbox" name="confirm" value="yes"> Send a second one today</label>` : ''}
<div class="lp-actions">
<button type="submit" name="action" value="preview" class="lp-button">Preview</button>
<button type="submit" name="action" value="test" class="lp-button">Send a test to me</button>
<button type="submit" name="action" value="send" class="lp-button">Send to the list</button>
</div>
</form>`
}
${previewSection(page)}
<section class="lp-section" aria-labelledby="past">
<h2 id="past">Sent announcements</h2>
${pastList(view, page.past)}
</section>
</main>`,
  )
}
