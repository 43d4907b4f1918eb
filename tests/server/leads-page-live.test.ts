import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Hono } from 'hono'
import { afterAll, describe, expect, it } from 'vitest'
import { functionLaunchOf } from '../../schema/function-launch.ts'
import type { PageConfig } from '../../schema/page-config.ts'
import { createLeadsPage } from '../../src/server/leads-page/leads-page.ts'
import { createPasswordCheck, openSessionStore } from '../../src/server/leads-page/sessions.ts'
import { leadsPageLaunchesOfLive } from '../../src/server/leads-page/views.ts'
import type { LaunchVersion } from '../../src/server/site/launch-version.ts'
import { createLiveLaunches } from '../../src/server/site/live-launches.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { defaultLaunch, mailFor, newLead, readPageConfig } from './support/fixtures.ts'

// The leads page of a running server reads its launches from the live set (src/server/site/live-launches.ts), so a
// publish (a roster naming a salesperson, new follow-up statuses) shows on it at once, without a restart.

const root = mkdtempSync(path.join(tmpdir(), 'vip-leads-live-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const password = 'correct horse battery staple'
const origin = 'http://leads.example'

/** A published version as the live set holds it: only its contract matters to the leads page. */
function versionOf(config: PageConfig, distDir: string): LaunchVersion {
  return {
    distDir,
    contract: functionLaunchOf(config),
    home: '',
    pageCss: undefined,
    headers: async (_c, next) => next(),
    files: () => Promise.resolve(new Response(null)),
  }
}

describe('the leads page of a running server', () => {
  it('shows what a publish changed (roster names, statuses) at the next request, and works its launches out once per publish', async () => {
    const first = readPageConfig()
    delete first.launch.roster
    delete first.launch.leadStatuses
    const live = createLiveLaunches(
      [
        {
          slug: defaultLaunch,
          isDefault: true,
          configFile: 'page.config.json',
          siteName: first.site.name,
          version: versionOf(first, 'v1'),
        },
      ],
      () => new Hono(),
    )
    const store = openSqliteStore(path.join(root, 'leads.sqlite'), { defaultLaunch })
    const sessions = openSessionStore(path.join(root, 'sessions.sqlite'), password)
    const launches = leadsPageLaunchesOfLive(() => live.current())
    const page = createLeadsPage({
      checkPassword: createPasswordCheck(password),
      audit: () => Promise.resolve(),
      store,
      sessions,
      launches,
      timeZone: 'America/Toronto',
      clientIp: () => '203.0.113.7',
      signInCounts: store,
      trustProxy: 0,
      log: { info: () => undefined, error: () => undefined },
    })
    const send = (target: string, form?: Record<string, string>, cookie = '') =>
      page.request(`${origin}${target}`, {
        method: form ? 'POST' : 'GET',
        headers: {
          host: 'leads.example',
          cookie,
          ...(form ? { origin, 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: form ? new URLSearchParams(form).toString() : undefined,
      })
    try {
      const signedIn = await send('/leads/sign-in', { password })
      const cookie = signedIn.headers
        .getSetCookie()
        .find((line) => line.startsWith('leads_session='))!
        .split(';')[0]!
      const lead = newLead({
        fields: { name: 'Ada Byrne', email: 'ada@example.com', phone: '555-555-0134', isRealtor: 'no' },
      })
      const { lead: saved } = await store.saveLead(lead, mailFor(lead))
      expect((await send(`/leads/lead/${saved.id}/assignee`, { assignee: 'sam@example.com' }, cookie)).status).toBe(303)

      const before = await (await send('/leads', undefined, cookie)).text()
      expect(before).toContain('<div><dt>Assigned to</dt><dd>sam@example.com</dd></div>')
      expect(before).not.toContain('Sam Chen')
      expect(before).not.toContain('Deposit paid')
      expect(launches()).toBe(launches())

      // The studio publishes a version whose roster names Sam and whose statuses add a step.
      const second = readPageConfig()
      second.launch.roster = [{ name: 'Sam Chen', email: 'sam@example.com' }]
      second.launch.leadStatuses = ['New', 'Contacted', 'Deposit paid']
      const made = launches()
      live.swap(defaultLaunch, versionOf(second, 'v2'))
      expect(launches()).not.toBe(made)

      const after = await (await send('/leads', undefined, cookie)).text()
      expect(after).toContain('<div><dt>Assigned to</dt><dd>Sam Chen</dd></div>')
      expect(after).toContain('<option value="Deposit paid">Deposit paid</option>')
    } finally {
      sessions.close()
      await store.close()
    }
  })
})
