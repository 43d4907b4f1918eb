import { parsePhoneNumberFromString, type PhoneNumber } from 'libphonenumber-js'
import type { NotificationForm } from '../delivery/notification.ts'
import type { PhoneReader } from '../store/follow-up.ts'
import type { LeadStore } from '../store/store.ts'
import type { AppLog } from '../app.ts'

/**
 * Phone numbers as the sales team reads and searches them: a number typed in any format ("(647) 555-0111",
 * "6475550111", "+1 647 555 0111") reads as one E.164 number (libphonenumber-js, Canada as the default region), is
 * shown in one national format, and finds the same person's other registrations. What was typed is kept as typed.
 */

/** The region a number typed without its country code is read in. */
export const defaultRegion = 'CA'

function parsed(typed: string): PhoneNumber | undefined {
  const number = parsePhoneNumberFromString(typed.trim(), defaultRegion)
  // A valid number only: a fictional or mistyped one ("(555) 555-0142") is kept as typed and matched by its digits.
  return number?.isValid() ? number : undefined
}

/** A typed phone number in E.164 ("+16475550111"), or '' when it does not read as a valid number. */
export function phoneE164(typed: string): string {
  return parsed(typed)?.number ?? ''
}

/**
 * How a phone number is shown: the national format for North American numbers, the international one for others, else
 * as typed.
 */
export function phoneDisplay(typed: string): string {
  const number = parsed(typed)
  if (!number) return typed
  return number.countryCallingCode === '1' ? number.formatNational() : number.formatInternational()
}

/** A search text that reads as one phone number (digits and separators only): its E.164, else undefined. */
export function searchedPhone(text: string): string | undefined {
  if (!/^[\d\s().+-]+$/.test(text.trim())) return undefined
  return phoneE164(text) || undefined
}

type UiOptions = { 'ui:options'?: { inputType?: unknown } }

/** A form's phone fields: those its uiSchema types as tel, else one named phone. */
export function phoneFieldsOf(form: NotificationForm): string[] {
  const fields = Object.keys(form.schema.properties ?? {}).filter(
    (field) => ((form.uiSchema?.[field] ?? {}) as UiOptions)['ui:options']?.inputType === 'tel',
  )
  return fields.length > 0 ? fields : ['phone']
}

/** Reads a stored lead's phone in E.164 by its launch's form (the first phone field that reads as a number). */
export function createPhoneReader(formOf: (launch: string) => NotificationForm): PhoneReader {
  return ({ launch, fields }) => {
    for (const field of phoneFieldsOf(formOf(launch))) {
      const value = fields[field]
      const e164 = typeof value === 'string' ? phoneE164(value) : ''
      if (e164) return e164
    }
    return ''
  }
}

/**
 * Reads the phones of leads stored since the last look (E.164), once at a time: searches and repeats need them. The
 * leads stored before this version (or by the function since the last start) are read at once, not on the first look.
 */
export function startReadingPhones(
  store: Pick<LeadStore, 'fillPhoneNumbers'>,
  formOf: (launch: string) => NotificationForm,
  log: Pick<AppLog, 'error'>,
): () => Promise<void> {
  const readPhone = createPhoneReader(formOf)
  let reading: Promise<void> | undefined
  const readPhones = () => {
    reading ??= store
      .fillPhoneNumbers(readPhone)
      .then(() => undefined)
      .finally(() => {
        reading = undefined
      })
    return reading
  }
  readPhones().catch((error: unknown) =>
    log.error('leads page: could not read the phone numbers of the stored leads', error),
  )
  return readPhones
}
