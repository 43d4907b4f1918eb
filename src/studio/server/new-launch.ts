import { rmSync } from 'node:fs'
import path from 'node:path'
import type { Context, Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { checkPageConfigText } from '../../config/check-page-config.ts'
import { hostsOf, type LaunchDetails } from '../../config/launch-details.ts'
import { createLaunch, LaunchError, launchNamePattern, launchNameProblem } from '../../config/new-launch.ts'
import { singleAddress } from '../../server/delivery/mailer.ts'
import { slugOf, type NewLaunchResponse } from '../protocol.ts'
import { jsonBody, refuse } from './api.ts'
import type { StudioContext, StudioEnv } from './context.ts'
import { fileText, mayEdit, servedLaunch, studioProblems } from './launches.ts'

/**
 * POST /studio/api/launches: New launch. An owner or editor starts the next development as a copy of a launch they
 * may edit, with the checklist of `npm run new-launch` as fields (name, phone, e-mail, address, web address,
 * notification address, reply sender) written into the copy everywhere the old ones stand (src/config/new-launch.ts,
 * launch-details.ts). The copy is checked by the real checker before its folder is renamed into launches/<slug>/; it
 * is then served unpublished (503) until someone publishes it, and an editor limited to some launches gets it.
 */

type Fields = Record<string, string>

function field(body: Record<string, unknown>, name: string): string {
  const value = body[name]
  return typeof value === 'string' ? value.trim() : ''
}

/** A host name or an http(s) address made an origin (https:// when no scheme is written); undefined when it is neither. */
export function originOfDomain(domain: string): string | undefined {
  const written = /^[a-z][a-z0-9+.-]*:\/\//i.test(domain) ? domain : `https://${domain}`
  if (!URL.canParse(written)) return undefined
  const url = new URL(written)
  if (
    !/^https?:$/.test(url.protocol) ||
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    !/^\/?$/.test(url.pathname)
  )
    return undefined
  // A public name: at least one dot, letters, digits and dashes between them.
  if (!/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i.test(url.hostname)) return undefined
  return url.origin
}

/** Adds POST /api/launches to the studio app (mounted under /studio). */
export function addNewLaunch(app: Hono<StudioEnv>, ctx: StudioContext): void {
  const limit = bodyLimit({ maxSize: 16 * 1024, onError: (c) => refuse(c, 413, 'That request is too large.') })

  app.post('/api/launches', limit, async (c: Context<StudioEnv>) => {
    const account = c.get('account')
    if (account.role === 'sales')
      return refuse(c, 403, 'A sales account has the leads page only: it cannot start launches.')
    const root = ctx.root
    if (root === undefined)
      return refuse(
        c,
        409,
        'This studio cannot start launches: it was started without the project folder. Use npm run new-launch instead.',
      )
    const body = (await jsonBody(c)) ?? {}
    const fields: Fields = {}

    const from = field(body, 'from')
    const source = servedLaunch(ctx, from)
    if (!source || !mayEdit(account, from)) fields.from = 'Choose the launch to copy from the list.'
    const name = field(body, 'name')
    if (!name) fields.name = "Write the development's name, as buyers know it (e.g. Maple Ridge)."
    else if (name.length > 100 || /[\u0000-\u001f]/.test(name))
      fields.name = 'Write the name on one line, in 100 characters at most.'
    const typedSlug = field(body, 'slug')
    const slug = typedSlug || slugOf(name)
    const slugField = typedSlug ? 'slug' : 'name'
    if (!fields.name) {
      if (!launchNamePattern.test(slug)) {
        fields[slugField] = typedSlug
          ? 'Use lower-case letters, digits and dashes, starting with a letter or digit (e.g. maple-ridge).'
          : 'Write a short name (slug) too: lower-case letters, digits and dashes (e.g. maple-ridge).'
      } else if (servedLaunch(ctx, slug) || launchNameProblem(slug, root)) {
        fields[slugField] = `There is a launch named "${slug}" already: choose another short name.`
      }
    }
    const phone = field(body, 'phone')
    const digits = phone.replace(/\D/g, '').length
    if (!/^\+?[\d\s().-]+$/.test(phone) || digits < 7 || digits > 15)
      fields.phone = 'Write the phone number with its area code, e.g. (555) 555-0199.'
    const emailFields = {
      email: 'the address shown on the page',
      notifyEmail: 'who is told of each registration',
      replyFrom: 'the sender of the reply to each registrant',
    }
    const addresses: Partial<Record<keyof typeof emailFields, string>> = {}
    for (const [key, what] of Object.entries(emailFields) as Array<[keyof typeof emailFields, string]>) {
      const address = singleAddress(field(body, key))
      if (address) addresses[key] = address
      else fields[key] = `Write one e-mail address for ${what}, such as sales@example.com.`
    }
    const address = field(body, 'address')
    if (!address)
      fields.address =
        'Write where the development or its sales office is, e.g. Maple Line & Concession Road 4, Alderbrook, ON.'
    else if (address.length > 200 || /[\u0000-\u001f]/.test(address))
      fields.address = 'Write the address on one line, in 200 characters at most.'
    const origin = originOfDomain(field(body, 'domain'))
    if (!origin) fields.domain = 'Write the web address the page will have, such as mapleridge.example.com.'
    else {
      const host = new URL(origin).host
      const holder = ctx.publisher.list().find((launch) => {
        const text = fileText(launch)
        try {
          return text !== undefined && hostsOf(JSON.parse(text.replace(/^\uFEFF/, ''))).has(host)
        } catch {
          return false
        }
      })
      if (holder) fields.domain = `${host} is the address of ${holder.siteName}: give the new launch its own.`
    }
    if (Object.keys(fields).length > 0 || !source) {
      return c.json({ error: 'Some fields need a change: see the message at each one.', fields }, 400)
    }

    const details: LaunchDetails = {
      siteName: name,
      phone,
      email: addresses.email!,
      address,
      origin: origin!,
      notifyEmail: addresses.notifyEmail!,
      replyFrom: addresses.replyFrom!,
    }
    try {
      createLaunch(slug, root, source.configFile, { details, check: checkPageConfigText })
    } catch (error) {
      if (!(error instanceof LaunchError)) throw error
      if (error.kind === 'problems') return refuse(c, 422, error.message, studioProblems(error.problems))
      const at = error.kind === 'source' ? 'from' : slugField
      return c.json({ error: error.message, fields: { [at]: error.message } }, error.kind === 'source' ? 422 : 409)
    }
    const served = ctx.publisher.add(slug)
    if (!served) {
      // A server given one config alone (PAGE_CONFIG) serves no other: the folder would be an orphan.
      rmSync(path.join(root, 'launches', slug), { recursive: true, force: true })
      return refuse(
        c,
        409,
        'This server serves one config only (PAGE_CONFIG is set), so it cannot serve a new launch. Start it without PAGE_CONFIG, or use npm run new-launch.',
      )
    }
    if (account.launches) await ctx.store.grantLaunch(account.id, slug)
    await ctx.audit(account.email, 'new launch', slug, `a copy of ${from}`)
    return c.json<NewLaunchResponse>({ slug, siteName: served.siteName, localUrl: served.localUrl }, 201)
  })
}
