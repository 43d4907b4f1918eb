// The leads-page room (src/server/leads-page/): the sales team's pages at /leads (sign-in, list, search, CSV); it
// reads leads only through the store's contract (store/store.ts), never a driver.
import { Hono } from 'hono'
import { createLeadsContext, type LeadsPageDeps } from './context.ts'
import { addAnnouncementRoutes } from './routes/announcements.ts'
import { addAssetRoutes } from './routes/assets.ts'
import { addDashboardRoutes } from './routes/dashboard.ts'
import { addDownloadRoutes } from './routes/downloads.ts'
import { addFollowUpRoutes } from './routes/follow-up.ts'
import { addGuards } from './routes/guards.ts'
import { addLeadRoutes } from './routes/lead.ts'
import { addListRoutes } from './routes/list.ts'
import { addSearchRoutes } from './routes/search.ts'
import { addSignInRoutes } from './routes/sign-in.ts'

/**
 * The leads page for the sales team, at /leads on the Node server: every registration newest first, searchable, a
 * page at a time, each on a page of its own, downloadable as CSV. Who may look: a person signed in to the studio (any
 * role; an account limited to some launches sees only their leads), or, when LEADS_PASSWORD is set, whoever signs in
 * here with that shared password. Every look at the list, at a lead and every download goes into the audit log
 * (`audit`), with who and what but never a registrant's data or a search's text.
 *
 * No personal data in URLs: the search is a POST whose text is kept in the server-side session (then a redirect
 * to GET /leads), and paging links carry only a lead's time and id. With several launches, a launch filter (kept in
 * the session too) narrows the list and the download to one. Every answer is `Cache-Control: no-store`
 * and `X-Robots-Tag: noindex`. CSRF: the session cookie is SameSite=Strict and every POST must come from this
 * origin (Origin header).
 *
 * Each page or resource adds its routes from its own file in routes/; a new one is its file and one line here.
 */

/** Builds the leads page's Hono app; mount it on the site with `site.route('/', app)`. */
export function createLeadsPage(deps: LeadsPageDeps): Hono {
  const ctx = createLeadsContext(deps)
  const app = new Hono()
  addGuards(app, ctx)
  addListRoutes(app, ctx)
  addSearchRoutes(app, ctx)
  addLeadRoutes(app, ctx)
  addFollowUpRoutes(app, ctx)
  addAnnouncementRoutes(app, ctx)
  addDashboardRoutes(app, ctx)
  addSignInRoutes(app, ctx)
  addDownloadRoutes(app, ctx)
  addAssetRoutes(app)
  return app
}
