// The registration room (src/server/registration/): reading a registration: the JSON body and the no-JS form post
// with its page, the refusals, who is calling and from which address, which launch it is for, the rate limit.
/**
 * Reading a registration request's body: bytes to a plain JSON object, and the lead's context (submission id,
 * page, referrer, UTM, consent) checked field by field. Every problem is a refusal with a plain message.
 * Web-standard APIs only: the Deno entry runs this file too.
 */
import type { FormConfig } from '../../../schema/form-config.ts'
import { clickIdParams, honeypotField, legacyHoneypotField } from '../../../schema/registration-contract.ts'
import { servedFieldSchemas, type FieldMessages } from '../../../schema/registration-rules.ts'
import { refusal } from './refusal.ts'

/** A registration body: a JSON object, checked for hostile keys and depth. */
export type RegistrationBody = Record<string, unknown>

/** What a lead carries besides its form fields, read from the body. */
export type SubmissionContext = {
  submissionId: string
  pageUrl: string | null
  referrer: string | null
  utm: Record<string, string>
  clickIds: Record<string, string>
  landingPage: string | null
  /** The consent text the browser says it showed: a report, not proof (lead-evidence.ts keeps the server's own). */
  reportedConsent: string | null
}

const maxDepth = 16
const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype'])
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const utmKeyPattern = /^utm_[a-z0-9_]{1,40}$/i
// eslint-disable-next-line no-control-regex
const controlExceptTab = /[\u0000-\u0008\u000a-\u001f\u007f]/
// eslint-disable-next-line no-control-regex
const controlExceptWhitespace = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/

/** UTF-8 bytes to a JSON object; refuses bad UTF-8, bad JSON, deep nesting and prototype-polluting keys anywhere. */
export function parseRegistrationBody(bytes: ArrayBuffer): RegistrationBody {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw refusal(400, 'The request body is not valid UTF-8 text.')
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    if (error instanceof RangeError) throw refusal(400, 'The request body is nested too deeply.')
    throw refusal(400, 'The request body is not valid JSON.')
  }
  // Iterative, so a hostile document cannot exhaust the stack here either.
  const pending: [unknown, number][] = [[value, 0]]
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!
    if (typeof node !== 'object' || node === null) continue
    if (depth >= maxDepth) throw refusal(400, 'The request body is nested too deeply.')
    for (const key of Object.keys(node)) {
      if (forbiddenKeys.has(key)) throw refusal(400, `The request body contains a key that is not allowed: "${key}".`)
      pending.push([(node as Record<string, unknown>)[key], depth + 1])
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw refusal(400, 'The request body must be a JSON object of form fields.')
  }
  return value as RegistrationBody
}

/** Bots fill every input, including the hidden one people leave empty (`hp_leave_empty`; `website` in older pages). */
export function isHoneypotFilled(body: RegistrationBody): boolean {
  const filled = (value: unknown) =>
    value !== undefined && value !== null && !(typeof value === 'string' && value.trim() === '')
  return filled(body[honeypotField]) || filled(body[legacyHoneypotField])
}

function optionalText(body: RegistrationBody, key: string, max: number, allowNewlines = false): string | null {
  const value = body[key]
  if (value === undefined || value === null) return null
  if (typeof value !== 'string') throw refusal(400, `${key} must be a string.`)
  const trimmed = value.trim()
  if (trimmed.length > max) throw refusal(400, `${key} is too long: at most ${max} characters.`)
  if ((allowNewlines ? controlExceptWhitespace : controlExceptTab).test(trimmed)) {
    throw refusal(400, `${key} contains line breaks or control characters.`)
  }
  return trimmed === '' ? null : trimmed
}

// Any text is taken and judged later (lead-evidence.ts: ownPageAddress): a visitor never loses a registration over
// the page's address, which is only attribution.
function pageUrlOf(body: RegistrationBody): string | null {
  const value = body.pageUrl
  if (value === undefined || value === null) return null
  if (typeof value !== 'string') throw refusal(400, 'pageUrl must be a string.')
  return value.trim() || null
}

function utmOf(body: RegistrationBody): Record<string, string> {
  const value = body.utm
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object' || Array.isArray(value))
    throw refusal(400, 'utm must be an object of utm_* parameters.')
  const entries = Object.entries(value as Record<string, unknown>)
  if (entries.length > 20) throw refusal(400, 'utm has too many parameters: at most 20.')
  const out: Record<string, string> = {}
  for (const [key, v] of entries) {
    if (!utmKeyPattern.test(key))
      throw refusal(400, `utm may only hold utm_* parameters; "${key.slice(0, 50)}" is not one.`)
    if (typeof v !== 'string') throw refusal(400, `utm.${key} must be a string.`)
    const text = v.trim()
    if (text.length > 500) throw refusal(400, `utm.${key} is too long: at most 500 characters.`)
    if (controlExceptTab.test(text)) throw refusal(400, `utm.${key} contains line breaks or control characters.`)
    if (text !== '') out[key.toLowerCase()] = text
  }
  return out
}

function clickIdsOf(body: RegistrationBody): Record<string, string> {
  const value = body.clickIds
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object' || Array.isArray(value))
    throw refusal(400, `clickIds must be an object of ${clickIdParams.join(', ')}.`)
  const out: Record<string, string> = {}
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (!(clickIdParams as readonly string[]).includes(key))
      throw refusal(400, `clickIds may only hold ${clickIdParams.join(', ')}; "${key.slice(0, 50)}" is not one.`)
    if (typeof v !== 'string') throw refusal(400, `clickIds.${key} must be a string.`)
    const text = v.trim()
    if (text.length > 500) throw refusal(400, `clickIds.${key} is too long: at most 500 characters.`)
    if (controlExceptTab.test(text)) throw refusal(400, `clickIds.${key} contains line breaks or control characters.`)
    if (text !== '') out[key] = text
  }
  return out
}

function landingPageOf(body: RegistrationBody): string | null {
  const value = optionalText(body, 'landingPage', 2048)
  if (value === null) return null
  if (!value.startsWith('/')) throw refusal(400, 'landingPage must be a path, starting with "/".')
  // The path only: a query string or fragment could carry personal data.
  return value.split(/[?#]/)[0] ?? '/'
}

/** The lead's context from the body; `newId` makes a submission id when the browser sent none. */
export function readSubmissionContext(body: RegistrationBody, defaults: { newId: () => string }): SubmissionContext {
  const rawId = body.submissionId
  if (rawId !== undefined && rawId !== null && (typeof rawId !== 'string' || !uuidPattern.test(rawId))) {
    throw refusal(400, 'submissionId must be a UUID.')
  }
  return {
    submissionId: (typeof rawId === 'string' ? rawId : defaults.newId()).toLowerCase(),
    pageUrl: pageUrlOf(body),
    referrer: optionalText(body, 'referrer', 2048),
    utm: utmOf(body),
    clickIds: clickIdsOf(body),
    landingPage: landingPageOf(body),
    reportedConsent: optionalText(body, 'consentText', 2000, true),
  }
}

/** Single-line fields may not carry line breaks or control characters; textarea fields may carry line breaks. */
export function controlCharacterErrors(
  body: RegistrationBody,
  form: Pick<FormConfig, 'schema' | 'uiSchema'>,
): FieldMessages {
  const errors: FieldMessages = {}
  for (const field of servedFieldSchemas(form.schema).keys()) {
    const value = body[field]
    if (typeof value !== 'string') continue
    const ui = (form.uiSchema as Record<string, { 'ui:widget'?: unknown } | undefined>)[field]
    const multiline = ui?.['ui:widget'] === 'textarea'
    if ((multiline ? controlExceptWhitespace : controlExceptTab).test(value)) {
      errors[field] = multiline ? 'Remove control characters.' : 'Remove line breaks and control characters.'
    }
  }
  return errors
}

/** The User-Agent as stored: control characters blanked, at most 512 characters, null when empty. */
export function userAgentOf(header: string | undefined): string | null {
  return (
    (header ?? '')
      // eslint-disable-next-line no-control-regex -- control characters are what is blanked
      .replace(/[\u0000-\u001f\u007f]/g, ' ')
      .trim()
      .slice(0, 512) || null
  )
}

/** The same JSON for the same data, whatever the key order (Postgres jsonb reorders keys). */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(value)
}

/** Whether two leads' fields hold the same data (a retry), whatever their key order. */
export function sameFields(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return canonical(a) === canonical(b)
}
