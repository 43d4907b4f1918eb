import { insertMembers, nodeAt, replaceStrings, replaceValue } from './json-edit.ts'
import { parseJsonSource, type Segment } from './json-source.ts'

/**
 * The things that belong to one development and must change when a launch is copied for the next one (the studio's
 * New launch form): written into the copy's config text everywhere the old values stand, so nothing of the old
 * development survives by mistake.
 */

/** The new development's own values. `origin` is its web address (scheme://host, no path). */
export type LaunchDetails = {
  siteName: string
  /** As visitors read it, e.g. "(555) 555-0199". */
  phone: string
  email: string
  /** Where the development or its sales office is, in a few words. */
  address: string
  origin: string
  notifyEmail: string
  replyFrom: string
}

type SourceData = {
  site?: { name?: unknown; phone?: { display?: unknown; dial?: unknown }; email?: unknown; location?: unknown }
  seo?: { canonicalUrl?: unknown; jsonLd?: { telephone?: unknown; email?: unknown; address?: unknown } }
  launch?: { notifyEmail?: unknown; realtorEmail?: unknown; origins?: unknown }
  reply?: { sender?: { email?: unknown } }
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value : undefined)
const digitsOf = (value: string): string => value.replace(/\D/g, '')
const escapeRegExp = (value: string): string => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * A phone number as typed made international ("+" and digits), the country code taken from `oldDial` when it has none.
 */
export function dialOf(phone: string, oldDial: string | undefined): string {
  const digits = digitsOf(phone)
  if (phone.trim().startsWith('+')) return `+${digits}`
  const oldDigits = oldDial ? digitsOf(oldDial) : ''
  // "+15555550142" for a 10-digit number: the country code is what comes before the national digits.
  const country = oldDigits.length > digits.length ? oldDigits.slice(0, oldDigits.length - digits.length) : ''
  return `+${country || '1'}${digits}`
}

/** The host names of the addresses a config states (its canonical address and other origins), lower-case. */
export function hostsOf(data: SourceData): Set<string> {
  const hosts = new Set<string>()
  const origins: unknown[] = Array.isArray(data.launch?.origins) ? data.launch.origins : []
  for (const address of [data.seo?.canonicalUrl, ...origins]) {
    if (typeof address !== 'string' || !URL.canParse(address)) continue
    const host = new URL(address).host.toLowerCase()
    if (host) hosts.add(host)
  }
  return hosts
}

/**
 * The copied config text (already the new launch's: slug set, old origins gone) with `details` written in: site.name,
 * phone, e-mail, location, launch.notifyEmail, reply.sender.email and seo.canonicalUrl set, and every mention of the
 * old development's name, phone number (in any of its written forms), e-mail addresses, location and host in any text
 * replaced by the new one's. `source` is the config as it was before the copy (for the old values).
 */
export function withLaunchDetails(configText: string, source: SourceData, details: LaunchDetails): string {
  const oldName = text(source.site?.name)
  const oldDial = text(source.site?.phone?.dial)
  const newDial = dialOf(details.phone, oldDial)
  const oldPhoneDigits = new Set(
    [source.site?.phone?.display, oldDial, source.seo?.jsonLd?.telephone]
      .flatMap((value) => (text(value) ? [digitsOf(value as string)] : []))
      .filter((d) => d.length >= 7),
  )
  const emails = new Map<string, string>()
  for (const old of [source.site?.email, source.seo?.jsonLd?.email])
    if (text(old)) emails.set((old as string).toLowerCase(), details.email)
  if (text(source.launch?.notifyEmail) && !emails.has((source.launch!.notifyEmail as string).toLowerCase()))
    emails.set((source.launch!.notifyEmail as string).toLowerCase(), details.notifyEmail)
  // The co-op desk's address for realtors' registrations: the new launch's team address until someone names its own.
  if (text(source.launch?.realtorEmail) && !emails.has((source.launch!.realtorEmail as string).toLowerCase()))
    emails.set((source.launch!.realtorEmail as string).toLowerCase(), details.notifyEmail)
  if (text(source.reply?.sender?.email) && !emails.has((source.reply!.sender!.email as string).toLowerCase()))
    emails.set((source.reply!.sender!.email as string).toLowerCase(), details.replyFrom)
  const oldLocation = text(source.site?.location)
  const newHost = new URL(details.origin).host
  const oldHosts = hostsOf(source)

  const replacements: Array<[RegExp, (match: string) => string]> = []
  for (const [old, replacement] of emails) replacements.push([new RegExp(escapeRegExp(old), 'gi'), () => replacement])
  // Addresses on the old hosts keep their path; a host written alone ("bramblewood.example.com") becomes the new one.
  for (const host of oldHosts) {
    replacements.push([new RegExp(`https?://${escapeRegExp(host)}(?![\\w.-])`, 'gi'), () => details.origin])
    replacements.push([new RegExp(`(?<![\\w.-])${escapeRegExp(host)}(?![\\w-])`, 'gi'), () => newHost])
  }
  if (oldName) replacements.push([new RegExp(escapeRegExp(oldName), 'gi'), () => details.siteName])
  if (oldLocation) replacements.push([new RegExp(escapeRegExp(oldLocation), 'gi'), () => details.address])
  // A phone number in any form ("(555) 555-0142", "+1-555-555-0142", "+15555550142"): the same digits, with or
  // without the country code. A "+" form becomes the new international form, any other the number as typed.
  replacements.push([
    /\+?\(?\d[\d\s().-]{5,}\d/g,
    (match) => {
      const digits = digitsOf(match)
      const same =
        digits.length >= 7 &&
        [...oldPhoneDigits].some(
          (old) =>
            digits === old ||
            (Math.abs(old.length - digits.length) <= 3 && (old.endsWith(digits) || digits.endsWith(old))),
        )
      return same ? (match.startsWith('+') ? newDial : details.phone) : match
    },
  ])

  let out = replaceStrings(configText, (value) => {
    let changed = value
    for (const [pattern, replace] of replacements) changed = changed.replace(pattern, replace)
    return changed === value ? undefined : changed
  })

  /** Sets the value at `at` (JSON text when `json`), adding it to its object when it is not there. */
  const set = (at: Segment[], value: string, json = JSON.stringify(value)): void => {
    const parsed = parseJsonSource(out)
    if ('syntax' in parsed) return
    if (nodeAt(parsed.source, at)) out = replaceValue(out, at, json)
    else if (at.length > 1 && nodeAt(parsed.source, at.slice(0, -1)))
      out = insertMembers(out, at.slice(0, -1), [[String(at[at.length - 1]), json]])
  }
  set(['site', 'name'], details.siteName)
  set(['site', 'phone', 'display'], details.phone)
  set(['site', 'phone', 'dial'], newDial)
  set(['site', 'email'], details.email)
  set(['site', 'location'], details.address)
  set(['launch', 'notifyEmail'], details.notifyEmail)
  set(['reply', 'sender', 'email'], details.replyFrom)
  set(['seo', 'canonicalUrl'], `${details.origin}/`)
  if (source.seo?.jsonLd?.telephone !== undefined) set(['seo', 'jsonLd', 'telephone'], newDial)
  if (source.seo?.jsonLd?.email !== undefined) set(['seo', 'jsonLd', 'email'], details.email)
  // One line of address: the old one's street, town and postal code are the old development's.
  if (typeof source.seo?.jsonLd?.address === 'object' && source.seo.jsonLd.address !== null) {
    set(
      ['seo', 'jsonLd', 'address'],
      details.address,
      `{ "@type": "PostalAddress", "streetAddress": ${JSON.stringify(details.address)} }`,
    )
  }
  return out
}
