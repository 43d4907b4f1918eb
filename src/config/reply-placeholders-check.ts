import { isReplyPlaceholder } from '../../schema/reply-placeholders.ts'
import { formFieldSchemas } from '../../schema/registration-rules.ts'
import { closest, describePath, listWords, type Finding } from './describe.ts'
import type { Segment } from './json-source.ts'

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The form's fields, and those a reply may name besides {site} (schema/reply-placeholders.ts). */
export function replyPlaceholderFields(data: Json): { fields: string[]; allowed: string[] } {
  const form = isObject(data.form) ? data.form : {}
  const schema = isObject(form.schema) ? form.schema : {}
  // Conditional fields (if/then, e.g. a realtor's brokerage) count as the form's too: the reply is held to the same
  // rule.
  const properties = formFieldSchemas(schema)
  const fields = [...properties.keys()]
  return { fields, allowed: fields.filter((field) => isReplyPlaceholder(field, properties.get(field))) }
}

/** The reply's texts that may hold {placeholders}, each with where it is. */
export function replyTexts(reply: Json): [Segment[], unknown][] {
  const unsubscribe = isObject(reply.unsubscribe) ? reply.unsubscribe : {}
  return [
    [['reply', 'subject'], reply.subject],
    [['reply', 'greeting'], reply.greeting],
    ...(Array.isArray(reply.paragraphs)
      ? reply.paragraphs.map((p, i): [Segment[], unknown] => [['reply', 'paragraphs', i], p])
      : []),
    ...realtorReplyTexts(reply),
    [['reply', 'unsubscribe', 'notice'], unsubscribe.notice],
    [['reply', 'unsubscribe', 'heading'], unsubscribe.heading],
  ]
}

/**
 * The realtors' reply texts (reply.realtor: subject, greeting, paragraphs, co-operation terms), each with where it is.
 */
function realtorReplyTexts(reply: Json): [Segment[], unknown][] {
  const realtor = isObject(reply.realtor) ? reply.realtor : undefined
  if (!realtor) return []
  const at: Segment[] = ['reply', 'realtor']
  return [
    [[...at, 'subject'], realtor.subject],
    [[...at, 'greeting'], realtor.greeting],
    ...(Array.isArray(realtor.paragraphs)
      ? realtor.paragraphs.map((p, i): [Segment[], unknown] => [[...at, 'paragraphs', i], p])
      : []),
    [[...at, 'cooperation'], realtor.cooperation],
  ]
}

/** Each phase's reply texts (page.config.json phases.list[i].reply), each with where it is: the same rules hold. */
function phaseReplyTexts(data: Json): [Segment[], unknown][] {
  const list = isObject(data.phases) && Array.isArray(data.phases.list) ? data.phases.list : []
  return list.flatMap((phase, index) => {
    const reply = isObject(phase) && isObject(phase.reply) ? phase.reply : undefined
    if (!reply) return []
    const at: Segment[] = ['phases', 'list', index, 'reply']
    return [
      [[...at, 'subject'], reply.subject],
      [[...at, 'greeting'], reply.greeting],
      ...(Array.isArray(reply.paragraphs)
        ? reply.paragraphs.map((p, i): [Segment[], unknown] => [[...at, 'paragraphs', i], p])
        : []),
    ] as [Segment[], unknown][]
  })
}

/**
 * The reply's {placeholders} must name a form field or {site}: an unknown one would reach every registrant as
 * written, braces and all. A reply must also have an e-mail field to go to.
 */
export function checkReplyPlaceholders(data: Json): Finding[] {
  if (!isObject(data.reply)) return []
  const reply = data.reply
  const { fields, allowed } = replyPlaceholderFields(data)
  const known = [...fields, 'site']
  const findings: Finding[] = []
  if (fields.length > 0 && !fields.includes('email')) {
    findings.push({
      at: ['reply'],
      onKey: true,
      message: 'The config has a reply, but the form has no "email" field to send it to.',
      fix: 'Add an "email" field to form.schema.properties, or remove "reply".',
    })
  }
  const unsubscribe = isObject(reply.unsubscribe) ? reply.unsubscribe : {}
  for (const [at, text] of [...replyTexts(reply), ...phaseReplyTexts(data)]) {
    if (typeof text !== 'string') continue
    for (const match of text.matchAll(/\{([^{}]*)\}/g)) {
      const name = match[1]!
      if (name === 'site' || allowed.includes(name)) continue
      if (known.includes(name)) {
        // Issue 21: the reply goes to any address typed, so it must not carry what the visitor wrote.
        findings.push({
          at,
          message: `${describePath(at)} has the placeholder {${name}}, which would copy what a visitor typed into a message sent to any address they enter: the site could be used to send their text to strangers.`,
          fix: `Remove {${name}}. A reply may use {site}${allowed.length > 0 ? ` and ${listWords(allowed.map((f) => `{${f}}`))}` : ''} ({name} only greets a name made of letters, {phone} shows the number's digits).`,
        })
        continue
      }
      const meant = closest(name, known)
      findings.push({
        at,
        message: `${describePath(at)} has the placeholder {${name}}, but there is no form field "${name}"${meant ? `; did you mean {${meant}}?` : '.'}`,
        fix: `Use {site}${allowed.length > 0 ? ` or ${listWords(allowed.map((f) => `{${f}}`))}` : ''}.`,
      })
    }
  }
  if (typeof unsubscribe.heading === 'string' && /\{(?!site\})[^{}]*\}/.test(unsubscribe.heading)) {
    findings.push({
      at: ['reply', 'unsubscribe', 'heading'],
      message:
        'reply.unsubscribe.heading may only use {site}: the unsubscribe page does not show what was typed in the form.',
      fix: 'Remove the other placeholders from it.',
    })
  }
  return findings
}
