import type { Hono } from 'hono'
import { leadsCss, leadsScript } from '../leads-css.ts'

/** Adds the leads page's stylesheet and its one script (leads-css.ts), both allowed by the site's CSP as 'self'. */
export function addAssetRoutes(app: Hono): void {
  app.get('/leads/leads.css', (c) => c.body(leadsCss, 200, { 'content-type': 'text/css; charset=utf-8' }))
  app.get('/leads/leads.js', (c) => c.body(leadsScript, 200, { 'content-type': 'text/javascript; charset=utf-8' }))
}
