// What the page and the send-contact-email function agree on besides the form's own fields: names of the extra
// inputs, the pages a plain (no-JavaScript) form post lands on, and the ad click ids kept with a lead. No imports:
// browser code reads this file too.

/**
 * The honeypot input's name: a field people never see and bots fill. Deliberately like no real field (browsers
 * autofill inputs named or labelled website, url, company, name, email, phone, address …), so autofill leaves it
 * empty and a real visitor is never taken for a bot.
 */
export const honeypotField = 'hp_leave_empty'

/** The honeypot's name in bodies sent by pages built before it was renamed; still read, never written. */
export const legacyHoneypotField = 'website'

/**
 * Names the registration request itself uses beside the form's fields (app.ts's request contract): a form field of
 * the same name would be taken for them, so the config checker refuses such a field.
 */
export const reservedFieldNames = [
  'launch',
  'submissionId',
  'pageUrl',
  'referrer',
  'utm',
  'clickIds',
  'landingPage',
  'consentText',
  honeypotField,
  legacyHoneypotField,
] as const

/** Where a registration sent by a plain form post (no JavaScript) lands when it is stored: the prerendered thanks. */
export const registeredPagePath = '/registered.html'

/**
 * Where a plain form post lands when a field needs attention and the function cannot show the form itself (on
 * Supabase): a prerendered page whose Back link returns to the filled form.
 */
export const checkDetailsPagePath = '/check-details.html'

/** Ad click ids kept with a lead (Google, Google iOS app/web-to-app, Meta, Microsoft), as their URL parameters. */
export const clickIdParams = ['gclid', 'gbraid', 'wbraid', 'fbclid', 'msclkid'] as const

/** The utm_* and click-id parameters of a page address, and its path (no query, no fragment: no personal data). */
export function attributionOfUrl(url: URL): {
  utm: Record<string, string>
  clickIds: Record<string, string>
  landingPage: string
} {
  const utm: Record<string, string> = {}
  const clickIds: Record<string, string> = {}
  for (const [key, value] of url.searchParams) {
    const text = value.trim().slice(0, 200)
    if (!text) continue
    if (/^utm_[a-z0-9_]{1,40}$/i.test(key)) utm[key.toLowerCase()] = text
    else if ((clickIdParams as readonly string[]).includes(key)) clickIds[key] = text
  }
  return { utm, clickIds, landingPage: url.pathname }
}
