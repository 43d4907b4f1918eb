/**
 * What kind of consent to marketing a lead gave (CASL): `express` when the launch's form offers the unticked
 * "send me updates" box (form.expressConsentField) and the visitor ticked it, otherwise `implied` by the inquiry,
 * which lasts six months from it. Computed once, at registration, from the server's clock; stored with the lead.
 * Web-standard only: the Deno function runs it too.
 */

/** How a lead consented to marketing. */
export type ConsentKind = 'express' | 'implied'

/** How long consent implied by an inquiry lasts under CASL. */
export const impliedConsentMonths = 6

/**
 * The moment `months` calendar months after `from` (ISO 8601, UTC), same time of day; a day the month lacks is its last
 * (31 August + 6 months: 28 February, or 29 in a leap year), as CASL counts months, never spilling into March.
 */
export function addMonthsUtc(from: string, months: number): string {
  const start = new Date(from)
  const month = start.getUTCMonth() + months
  const lastDay = new Date(Date.UTC(start.getUTCFullYear(), month + 1, 0)).getUTCDate()
  const end = new Date(start)
  end.setUTCFullYear(start.getUTCFullYear(), month, Math.min(start.getUTCDate(), lastDay))
  return end.toISOString()
}

/** When consent implied by an inquiry made at `inquiry` (ISO 8601) ends. */
export function impliedConsentEnd(inquiry: string): string {
  return addMonthsUtc(inquiry, impliedConsentMonths)
}

/** A lead's consent: express when the form's express-consent box (named by the config) was ticked, else implied. */
export function consentOf(
  fields: Record<string, unknown>,
  expressField: string | undefined,
  createdAt: string,
): { consentKind: ConsentKind; impliedConsentUntil: string } {
  return {
    consentKind: expressField !== undefined && fields[expressField] === true ? 'express' : 'implied',
    impliedConsentUntil: impliedConsentEnd(createdAt),
  }
}

/** Whether marketing (an announcement) may go to a lead at `now`: express consent, or implied consent not yet ended. */
export function mayMarket(lead: { consentKind: ConsentKind; impliedConsentUntil: string }, now: Date): boolean {
  return lead.consentKind === 'express' || Date.parse(lead.impliedConsentUntil) > now.getTime()
}
