import { hostsOf, type LaunchDetails } from '../../../config/launch-details.ts'
import { launchNamePattern, launchNameProblem } from '../../../config/new-launch.ts'
import { singleAddress } from '../../../server/delivery/mailer.ts'
import type { ServedLaunch } from '../../../server/site/launch-publisher.ts'
import { slugOf } from '../../protocol.ts'
import type { StudioContext } from '../context.ts'
import { fileText, mayEdit, servedLaunch } from '../launches.ts'
import type { Account } from '../store.ts'

/** What is wrong, by the form's field name. */
export type Fields = Record<string, string>

/** A New launch request checked: the launch to copy, the new one's short name and details, or what is wrong. */
export type NewLaunchRequest = {
  fields: Fields
  source: ServedLaunch | undefined
  from: string
  slug: string
  /** The field a problem with the short name belongs to: `slug` when one was typed, else `name`. */
  slugField: 'slug' | 'name'
  details: Partial<LaunchDetails>
}

/** Whether a text holds a C0 control character (a line break, a tab, NUL…): a name or an address stays on one line. */
const hasControlCharacter = (text: string) => [...text].some((character) => character.charCodeAt(0) < 0x20)

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

/** The development's name and its short name (typed, else made from the name), each free and well formed. */
function checkName(ctx: StudioContext, root: string, body: Record<string, unknown>, request: NewLaunchRequest): void {
  const { fields } = request
  const name = field(body, 'name')
  if (!name) fields.name = "Write the development's name, as buyers know it (e.g. Maple Ridge)."
  else if (name.length > 100 || hasControlCharacter(name))
    fields.name = 'Write the name on one line, in 100 characters at most.'
  request.details.siteName = name
  const typedSlug = field(body, 'slug')
  request.slug = typedSlug || slugOf(name)
  request.slugField = typedSlug ? 'slug' : 'name'
  if (fields.name) return
  if (!launchNamePattern.test(request.slug)) {
    fields[request.slugField] = typedSlug
      ? 'Use lower-case letters, digits and dashes, starting with a letter or digit (e.g. maple-ridge).'
      : 'Write a short name (slug) too: lower-case letters, digits and dashes (e.g. maple-ridge).'
  } else if (servedLaunch(ctx, request.slug) || launchNameProblem(request.slug, root)) {
    fields[request.slugField] = `There is a launch named "${request.slug}" already: choose another short name.`
  }
}

/** The phone, the three e-mail addresses and the street address. */
function checkContacts(body: Record<string, unknown>, request: NewLaunchRequest): void {
  const { fields, details } = request
  const phone = field(body, 'phone')
  const digits = phone.replace(/\D/g, '').length
  if (!/^\+?[\d\s().-]+$/.test(phone) || digits < 7 || digits > 15)
    fields.phone = 'Write the phone number with its area code, e.g. (555) 555-0199.'
  details.phone = phone
  const emailFields = {
    email: 'the address shown on the page',
    notifyEmail: 'who is told of each registration',
    replyFrom: 'the sender of the reply to each registrant',
  }
  for (const [key, what] of Object.entries(emailFields) as Array<[keyof typeof emailFields, string]>) {
    const address = singleAddress(field(body, key))
    if (address) details[key] = address
    else fields[key] = `Write one e-mail address for ${what}, such as sales@example.com.`
  }
  const address = field(body, 'address')
  if (!address)
    fields.address =
      'Write where the development or its sales office is, e.g. Maple Line & Concession Road 4, Alderbrook, ON.'
  else if (address.length > 200 || hasControlCharacter(address))
    fields.address = 'Write the address on one line, in 200 characters at most.'
  details.address = address
}

/** The launch of an existing config that already answers at `host`, if any. */
function holderOf(ctx: StudioContext, host: string): ServedLaunch | undefined {
  return ctx.publisher.list().find((launch) => {
    const text = fileText(launch)
    try {
      return (
        text !== undefined &&
        hostsOf(JSON.parse(text.replace(/^\uFEFF/, '')) as Parameters<typeof hostsOf>[0]).has(host)
      )
    } catch {
      return false
    }
  })
}

/** The web address: an origin no other launch has. */
function checkDomain(ctx: StudioContext, body: Record<string, unknown>, request: NewLaunchRequest): void {
  const origin = originOfDomain(field(body, 'domain'))
  if (!origin) {
    request.fields.domain = 'Write the web address the page will have, such as mapleridge.example.com.'
    return
  }
  request.details.origin = origin
  const host = new URL(origin).host
  const holder = holderOf(ctx, host)
  if (holder) request.fields.domain = `${host} is the address of ${holder.siteName}: give the new launch its own.`
}

/** Checks a New launch request's fields, each with the sentence its field shows. */
export function checkNewLaunch(
  ctx: StudioContext,
  account: Account,
  root: string,
  body: Record<string, unknown>,
): NewLaunchRequest {
  const from = field(body, 'from')
  const source = servedLaunch(ctx, from)
  const request: NewLaunchRequest = { fields: {}, source, from, slug: '', slugField: 'name', details: {} }
  if (!source || !mayEdit(account, from)) request.fields.from = 'Choose the launch to copy from the list.'
  checkName(ctx, root, body, request)
  checkContacts(body, request)
  checkDomain(ctx, body, request)
  return request
}
