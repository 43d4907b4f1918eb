import { readFileSync } from 'node:fs'
import path from 'node:path'
import { functionLaunchOf } from '../../../schema/function-launch.ts'
import type { PageConfig } from '../../../schema/page-config.ts'
import { launchSiteOf, type LaunchSite, type LaunchSiteOptions } from '../../../src/server/site/launch-site.ts'
import { composeLeadMail } from '../../../src/server/delivery/notification.ts'
import type { NewLead, OutgoingMail, QueuedMail } from '../../../src/server/store/store.ts'
import { impliedConsentEnd } from '../../../src/server/store/consent.ts'

/**
 * The repository's page.config.json, parsed as JSON only. The server tests need its form and site; the image and
 * semantic checks of loadPageConfig belong to the page's own tests.
 */
export function readPageConfig(): PageConfig {
  return JSON.parse(readFileSync(path.resolve('page.config.json'), 'utf8')) as PageConfig
}

/** The default launch's slug (the repository's page.config.json): what stores read a lead without a launch as. */
export const defaultLaunch = readPageConfig().launch.slug

/** The app's launch for a page config (by default the repository's), as the entries make it. */
export function launchSite(config: PageConfig = readPageConfig(), options: LaunchSiteOptions = {}): LaunchSite {
  return launchSiteOf(functionLaunchOf(config), options)
}

/** A valid registration body as the browser sends it. */
export function registration(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Jane Doe',
    email: 'jane@example.com',
    phone: '555-555-0100',
    isRealtor: 'no',
    submissionId: crypto.randomUUID(),
    pageUrl: 'https://www.example.com/?utm_source=google',
    referrer: 'https://www.google.com/',
    utm: { utm_source: 'google', utm_campaign: 'launch' },
    clickIds: { gclid: 'Cj0KCQ-test' },
    landingPage: '/',
    consentText: 'By submitting, you agree to be contacted with VIP updates.',
    hp_leave_empty: '',
    ...overrides,
  }
}

/** A lead as the app hands it to a store. */
export function newLead(overrides: Partial<NewLead> = {}): NewLead {
  const createdAt = overrides.createdAt ?? new Date('2025-06-01T14:30:00.000Z').toISOString()
  return {
    // What the store reads a lead as: implied consent unless told, for six months from its inquiry.
    consentKind: 'implied',
    impliedConsentUntil: impliedConsentEnd(createdAt),
    submissionId: crypto.randomUUID(),
    launch: defaultLaunch,
    createdAt: new Date('2025-06-01T14:30:00.000Z').toISOString(),
    fields: { name: 'Jane Doe', email: 'jane@example.com', phone: '555-555-0100', isRealtor: 'no' },
    consentText: 'By submitting, you agree to be contacted with VIP updates.',
    consentSha256: '6ac42fa0ae3a14bbbe41fd46fb467154203be57a24ffff181293241be1837a8c',
    consentReported: null,
    pageUrl: 'https://bramblewood.example.com/',
    referrer: null,
    utm: { utm_source: 'google' },
    userAgent: 'Mozilla/5.0 (test)',
    clickIds: {},
    landingPage: '/',
    suspectedSpam: false,
    ...overrides,
  }
}

/** The team's notification of a lead as the server composes it, from the default launch's page.config.json. */
export function notificationFor(lead: NewLead, page: PageConfig = readPageConfig()): OutgoingMail {
  return composeLeadMail(lead, {
    siteName: page.site.name,
    brokerage: page.site.brokerage,
    recipient: 'sales@example.com',
    timeZone: 'America/Toronto',
    form: page.form,
  })
}

/** A composed notification for a lead. */
export function mailFor(lead: NewLead): OutgoingMail {
  return {
    to: 'sales@example.com',
    subject: `New registration: ${String(lead.fields.name)}`,
    text: 'text body',
    html: '<p>html body</p>',
    messageId: `<lead.${lead.submissionId}@example.com>`,
    idempotencyKey: `lead-notification/${lead.submissionId}`,
  }
}

/** A queued notification or reply that an app composed with its lead (the default), as the e-mail it is. */
export function finished(mail: QueuedMail): OutgoingMail {
  if ('compose' in mail)
    throw new Error(`expected a composed e-mail, found one queued to compose when sent (${mail.compose})`)
  return mail
}
