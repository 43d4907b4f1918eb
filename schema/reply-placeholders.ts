/**
 * What the reply to a registrant may copy from the registration (issue 21, item 2). The reply goes to whatever address
 * was typed, from the brokerage's domain, without double opt-in: any free text in it would make the site a relay
 * ("Hello Visit http://phish.example …" sent to a stranger). So it carries no visitor-typed text but a name that
 * reads as a name and the phone number in a normalised form; fields whose values come from a list (the config's own
 * words) may be named too. Shared by the server (src/server/reply.ts) and the config checker.
 */

/**
 * A name the reply may greet: letters (accented ones too), spaces, ' and -, starting with a letter, up to 40
 * characters.
 */
export const replyNamePattern = /^\p{L}[\p{L}\p{M} '-]{0,39}$/u

/** The name as the reply may show it, or undefined (the reply then greets without a name). */
export function replyName(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  const name = value.trim().replace(/\s+/g, ' ')
  return replyNamePattern.test(name) ? name : undefined
}

/**
 * A phone number in its normalised form (digits only, grouped: 555-555-0100, +1 555-555-0100, +44 2079460000), or
 * undefined when it does not hold 7 to 15 digits. Nothing else the visitor typed survives.
 */
export function replyPhone(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  const digits = value.replace(/\D/g, '')
  if (digits.length < 7 || digits.length > 15) return undefined
  const nanp = (ten: string) => `${ten.slice(0, 3)}-${ten.slice(3, 6)}-${ten.slice(6)}`
  if (digits.length === 10 && !value.trim().startsWith('+')) return nanp(digits)
  if (digits.length === 11 && digits.startsWith('1')) return `+1 ${nanp(digits.slice(1))}`
  return value.trim().startsWith('+') ? `+${digits}` : digits
}

/**
 * The form fields a reply text may name besides {site}: the fields named name and phone, and fields with a list of
 * values.
 */
export function isReplyPlaceholder(field: string, fieldSchema: unknown): boolean {
  if (field === 'name' || field === 'phone') return true
  const schema =
    typeof fieldSchema === 'object' && fieldSchema !== null
      ? (fieldSchema as { enum?: unknown; type?: unknown; const?: unknown })
      : {}
  return Array.isArray(schema.enum) || schema.const !== undefined || schema.type === 'boolean'
}
