import { formFieldSchemas } from '../../schema/registration-rules.ts'
import type { Finding } from './describe.ts'

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The realtors' path (launch.realtorEmail, reply.realtor) needs a way to tell a realtor: the form's "isRealtor" field
 * with a "yes" answer. Without it, the co-op desk would never be told and realtors would never get their words.
 */
export function checkRealtorPath(data: Json): Finding[] {
  const launch = isObject(data.launch) ? data.launch : {}
  const reply = isObject(data.reply) ? data.reply : {}
  const named: Array<{ at: string[]; what: string }> = [
    ...(launch.realtorEmail !== undefined ? [{ at: ['launch', 'realtorEmail'], what: 'launch.realtorEmail (the co-op desk)' }] : []),
    ...(reply.realtor !== undefined ? [{ at: ['reply', 'realtor'], what: 'reply.realtor (the realtors\' reply)' }] : []),
  ]
  if (named.length === 0) return []
  const form = isObject(data.form) ? data.form : {}
  const isRealtor = formFieldSchemas(form.schema).get('isRealtor')
  const answers = isRealtor && Array.isArray(isRealtor.enum) ? isRealtor.enum : isRealtor && 'const' in isRealtor ? [isRealtor.const] : []
  if (answers.includes('yes')) return []
  return named.map(({ at, what }) => ({
    at,
    onKey: true,
    message: `${what} is only used for realtors, but the form has no "isRealtor" field with the answer "yes", so no registration would ever count as a realtor's.`,
    fix: 'Keep the form\'s "isRealtor" question (enum ["yes", "no"]) in form.schema.properties, or delete this setting.',
  }))
}
