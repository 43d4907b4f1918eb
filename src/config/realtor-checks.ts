import { formBranches } from '../../schema/form-branches.ts'
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
    ...(launch.realtorEmail !== undefined
      ? [{ at: ['launch', 'realtorEmail'], what: 'launch.realtorEmail (the co-op desk)' }]
      : []),
    ...(reply.realtor !== undefined ? [{ at: ['reply', 'realtor'], what: "reply.realtor (the realtors' reply)" }] : []),
  ]
  if (named.length === 0) return []
  const form = isObject(data.form) ? data.form : {}
  const isRealtor = formFieldSchemas(form.schema).get('isRealtor')
  const answers =
    isRealtor && Array.isArray(isRealtor.enum)
      ? isRealtor.enum
      : isRealtor && 'const' in isRealtor
        ? [isRealtor.const]
        : []
  if (answers.includes('yes')) return []
  return named.map(({ at, what }) => ({
    at,
    onKey: true,
    message: `${what} is only used for realtors, but the form has no "isRealtor" field with the answer "yes", so no registration would ever count as a realtor's.`,
    fix: 'Keep the form\'s "isRealtor" question (enum ["yes", "no"]) in form.schema.properties, or delete this setting.',
  }))
}

/** A roster (launch.roster) that names one address twice would give that salesperson two turns in each round. */
export function checkRoster(data: Json): Finding[] {
  const launch = isObject(data.launch) ? data.launch : {}
  if (!Array.isArray(launch.roster)) return []
  const seen = new Map<string, number>()
  const findings: Finding[] = []
  launch.roster.forEach((person, i) => {
    const email = isObject(person) && typeof person.email === 'string' ? person.email.trim().toLowerCase() : undefined
    if (!email) return
    const first = seen.get(email)
    if (first === undefined) seen.set(email, i)
    else {
      findings.push({
        at: ['launch', 'roster', i, 'email'],
        message: `launch.roster names ${email} twice (salespeople ${first + 1} and ${i + 1}): that person would take two turns in each round.`,
        fix: 'Keep one entry for each salesperson.',
      })
    }
  })
  return findings
}

/**
 * A heading of the fields one answer asks for (form.noScript.branchHeadings) must name an answer the form schema has a
 * branch for ("field=answer" as in its "if"): a misspelt one would never be shown, and the group would be headed by the
 * catch-all heading.
 */
export function checkBranchHeadings(data: Json): Finding[] {
  const form = isObject(data.form) ? data.form : {}
  const noScript = isObject(form.noScript) ? form.noScript : {}
  if (!isObject(noScript.branchHeadings)) return []
  const conditions = formBranches(form.schema).flatMap((branch) => (branch.condition ? [branch.condition] : []))
  return Object.keys(noScript.branchHeadings)
    .filter((key) => !conditions.includes(key))
    .map((key) => ({
      at: ['form', 'noScript', 'branchHeadings', key],
      onKey: true,
      message: `form.noScript.branchHeadings names "${key}", but no "if" of form.schema asks for that answer.`,
      fix: conditions.length
        ? `Name one of: ${conditions.map((c) => `"${c}"`).join(', ')}.`
        : 'Delete it: the form asks for no further fields after any answer.',
    }))
}
