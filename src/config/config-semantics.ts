import path from 'node:path'
import {
  createRegistrationAjv,
  isEmailAddress,
  withPlainTextRule,
  type RegistrationRules,
} from '../../schema/registration-ajv.ts'
import { formFieldSchemas, formRequiredFields } from '../../schema/registration-rules.ts'
import { messageRuleKeywords } from '../../schema/form-config.ts'
import { reservedFieldNames } from '../../schema/registration-contract.ts'
import { checkDocuments, checkImages } from './config-files.ts'
import { checkReplyPlaceholders } from './reply-placeholders-check.ts'
import { checkExpressConsent, checkPrivacy } from './legal-checks.ts'
import { checkPhases, listAnchorLinks } from './phase-checks.ts'
import { checkBranchHeadings, checkRealtorPath, checkRoster } from './realtor-checks.ts'
import { closest, describePath, describeValue, listWords, type Finding } from './describe.ts'
import { explainAjvErrors } from './explain-ajv-errors.ts'
import type { Segment } from './json-source.ts'

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The checks a person trips on that JSON Schema cannot express: images on disk, links to anchors, unique
 * anchors, absolute addresses, phone numbers and e-mails that agree, and a form whose schema, messages and
 * layout fit together. Works on unvalidated data (anything of the wrong shape is left to the schema).
 */
export function checkConfigSemantics(data: unknown, publicDir: string): Finding[] {
  if (!isObject(data)) return []
  return [
    ...checkImages(data, publicDir),
    ...checkAnchors(data),
    ...checkAddresses(data),
    ...checkContacts(data),
    ...checkForm(data),
    ...checkReplyPlaceholders(data),
    ...checkPrivacy(data),
    ...checkExpressConsent(data),
    ...checkPhases(data),
    ...checkRealtorPath(data),
    ...checkRoster(data),
    ...checkBranchHeadings(data),
    ...checkLeftTexts(data),
    // The launch's folder is where page.config.json and its public/ are.
    ...checkDocuments(data, path.dirname(publicDir)),
  ]
}

function checkAnchors(data: Json): Finding[] {
  const findings: Finding[] = []
  const sections = Array.isArray(data.sections) ? data.sections : []
  const firstUse = new Map<string, number>()
  sections.forEach((section, i) => {
    if (!isObject(section) || typeof section.anchor !== 'string') return
    const before = firstUse.get(section.anchor)
    if (before === undefined) {
      firstUse.set(section.anchor, i)
      return
    }
    findings.push({
      at: ['sections', i, 'anchor'],
      message: `sections[${i}].anchor '${section.anchor}' is already the anchor of sections[${before}]; anchors must be unique, or links cannot tell the sections apart.`,
      fix: `Give one of the two sections another anchor (and update any "#${section.anchor}" link that meant it).`,
    })
  })
  const anchors = [...firstUse.keys()]
  for (const link of listAnchorLinks(data)) {
    const target = link.href.slice(1)
    if (firstUse.has(target)) continue
    const meant = closest(target, anchors)
    findings.push({
      at: link.at,
      message: `${describePath(link.at)} links to '${link.href}', but no section has the anchor '${target}'${meant ? `; did you mean '#${meant}'?` : '.'}`,
      fix: `Link to one of the page's anchors (${anchors.map((a) => `#${a}`).join(', ') || 'none yet'}), or give the section you mean "anchor": "${target}".`,
    })
  }
  return findings
}

function checkAddresses(data: Json): Finding[] {
  const findings: Finding[] = []
  const seo = isObject(data.seo) ? data.seo : {}
  const jsonLd = isObject(seo.jsonLd) ? seo.jsonLd : {}
  const addresses: [Segment[], unknown][] = [
    [['seo', 'canonicalUrl'], seo.canonicalUrl],
    [['seo', 'jsonLd', 'url'], jsonLd.url],
    [['seo', 'jsonLd', 'image'], jsonLd.image],
  ]
  for (const [at, value] of addresses) {
    // schema.org also allows an object for jsonLd.image; only written addresses are checked.
    if (value === undefined || (at[1] === 'jsonLd' && typeof value !== 'string')) continue
    if (isAbsoluteWebAddress(value)) continue
    findings.push({
      at,
      message: `${describePath(at)} ${describeValue(value)} is not a full web address: search engines and link previews need one.`,
      fix: 'Write the whole address with https:// and the domain, e.g. "https://www.example.com/".',
    })
  }
  return findings
}

function isAbsoluteWebAddress(value: unknown): boolean {
  if (typeof value !== 'string') return false
  try {
    const url = new URL(value)
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '' && !/\s/.test(value)
  } catch {
    return false
  }
}

const digitsOf = (text: string): string => text.replace(/\D/g, '')

function checkContacts(data: Json): Finding[] {
  const findings: Finding[] = []
  const site = isObject(data.site) ? data.site : {}
  const phone = isObject(site.phone) ? site.phone : {}
  const seo = isObject(data.seo) ? data.seo : {}
  const jsonLd = isObject(seo.jsonLd) ? seo.jsonLd : {}
  const dial = typeof phone.dial === 'string' && /^\+[1-9]\d{6,14}$/.test(phone.dial) ? phone.dial : undefined

  if (typeof phone.dial === 'string' && !dial) {
    findings.push({
      at: ['site', 'phone', 'dial'],
      message: `site.phone.dial ${describeValue(phone.dial)} is not a phone number in international form.`,
      fix: 'Write "+", the country code and the digits, nothing else: e.g. "+15555550123".',
    })
  }
  if (dial && typeof phone.display === 'string' && !digitsOf(dial).endsWith(digitsOf(phone.display))) {
    findings.push({
      at: ['site', 'phone', 'display'],
      message: `site.phone.display ${describeValue(phone.display)} is not the number dialled (site.phone.dial is '${dial}'): visitors would read one number and call another.`,
      fix: 'Make the two the same number.',
    })
  }
  if ('telephone' in jsonLd) {
    const telephone = jsonLd.telephone
    const digits = typeof telephone === 'string' ? digitsOf(telephone) : ''
    if (
      typeof telephone !== 'string' ||
      !/^\+?[\d\s().-]+$/.test(telephone) ||
      digits.length < 7 ||
      digits.length > 15
    ) {
      findings.push({
        at: ['seo', 'jsonLd', 'telephone'],
        message: `seo.jsonLd.telephone ${describeValue(telephone)} is not a well-formed phone number.`,
        fix: 'Write it in international form, e.g. "+1-555-555-0123".',
      })
    } else if (dial && digits !== digitsOf(dial)) {
      findings.push({
        at: ['seo', 'jsonLd', 'telephone'],
        message: `seo.jsonLd.telephone ${describeValue(telephone)} is not the site's phone number (site.phone.dial is '${dial}').`,
        fix: 'Use the same number in both places: search engines show this one.',
      })
    }
  }
  if (typeof site.email === 'string' && !isEmailAddress(site.email)) {
    findings.push({
      at: ['site', 'email'],
      message: `site.email ${describeValue(site.email)} is not a valid e-mail address.`,
      fix: 'Write a whole address, such as sales@example.com.',
    })
  }
  if ('email' in jsonLd) {
    if (!isEmailAddress(jsonLd.email)) {
      findings.push({
        at: ['seo', 'jsonLd', 'email'],
        message: `seo.jsonLd.email ${describeValue(jsonLd.email)} is not a valid e-mail address.`,
        fix: 'Write a whole address, such as sales@example.com.',
      })
    } else if (
      typeof site.email === 'string' &&
      isEmailAddress(site.email) &&
      String(jsonLd.email).toLowerCase() !== site.email.toLowerCase()
    ) {
      findings.push({
        at: ['seo', 'jsonLd', 'email'],
        message: `seo.jsonLd.email '${String(jsonLd.email)}' is not the site's e-mail (site.email is '${site.email}').`,
        fix: 'Use the same address in both places: search engines show this one.',
      })
    }
  }
  return findings
}

const ruleKeywords: readonly string[] = messageRuleKeywords

function checkForm(data: Json): Finding[] {
  if (!isObject(data.form)) return []
  const form = data.form
  const findings: Finding[] = []
  const schema = form.schema
  if (isObject(schema)) findings.push(...checkFormSchemaCompiles(schema, form.uiSchema))
  // Every field the form can show, those that only appear under a condition (if/then) included.
  const properties = Object.fromEntries(formFieldSchemas(schema))
  // The rules each field really has: the config's, plus the plainText rule the form adds to text fields.
  const ruled = isObject(schema)
    ? (Object.fromEntries(
        formFieldSchemas(withPlainTextRule(schema as RegistrationRules['schema'], uiSchemaOf(form.uiSchema))),
      ) as Json)
    : {}
  const fields = Object.keys(properties)
  const topLevel = isObject(schema) && isObject(schema.properties) ? Object.keys(schema.properties) : []
  const conditional = fields.filter((field) => !topLevel.includes(field))
  const rootRequired = isObject(schema) && Array.isArray(schema.required) ? schema.required : []
  const required = formRequiredFields(schema)

  for (const field of fields.filter((f) => (reservedFieldNames as readonly string[]).includes(f))) {
    findings.push({
      at: topLevel.includes(field) ? ['form', 'schema', 'properties', field] : ['form', 'schema'],
      message: `The form cannot have a field named '${field}': the registration request already uses that name for something else.`,
      fix: `Rename the field (e.g. '${field}Answer') wherever it is named: form.schema, uiSchema and messages. Names the form cannot use: ${listWords([...reservedFieldNames])}.`,
    })
  }

  rootRequired.forEach((name, i) => {
    if (typeof name !== 'string' || fields.includes(name)) return
    const meant = closest(name, fields)
    findings.push({
      at: ['form', 'schema', 'required', i],
      message: `form.schema.required lists '${name}', but the form has no such field${meant ? `; did you mean '${meant}'?` : '.'}`,
      fix: `List only fields of form.schema.properties: ${listWords(fields)}.`,
    })
  })

  const messages = isObject(form.messages) ? form.messages : undefined
  if (messages) {
    for (const [field, rules] of Object.entries(messages)) {
      if (!fields.includes(field)) {
        findings.push(unknownFormField('messages', 'messages', field, fields))
        continue
      }
      if (!isObject(rules)) continue
      const fieldSchema = isObject(ruled[field]) ? ruled[field] : {}
      const has = ruleKeywords.filter((rule) => (rule === 'required' ? required.includes(field) : rule in fieldSchema))
      for (const rule of Object.keys(rules)) {
        if (!ruleKeywords.includes(rule) || has.includes(rule)) continue
        findings.push({
          at: ['form', 'messages', field, rule],
          onKey: true,
          message: `form.messages.${field}.${rule} is a message for a rule the field '${field}' does not have, so it would never show. Its rules are: ${listWords(has)}.`,
          fix:
            rule === 'required'
              ? `Delete this message, or add "${field}" to form.schema.required.`
              : `Delete this message, or add "${rule}" to form.schema.properties.${field}.`,
        })
      }
    }
    for (const field of required) {
      if (typeof field !== 'string' || !fields.includes(field)) continue
      const own = messages[field]
      if (isObject(own) && typeof own.required === 'string') continue
      findings.push({
        at: isObject(own) ? ['form', 'messages', field] : ['form', 'messages'],
        onKey: isObject(own),
        message: `form.messages has no "required" message for '${field}': a visitor who leaves it empty would read "must have required property '${field}'".`,
        fix: isObject(own)
          ? `Add "required": "…" to form.messages.${field}, e.g. "Please enter your ${field}".`
          : `Add "${field}": { "required": "…" } to form.messages.`,
      })
    }
  }

  if (isObject(form.uiSchema)) findings.push(...checkUiSchema(form.uiSchema, fields, conditional))
  return findings
}

function uiSchemaOf(value: unknown): RegistrationRules['uiSchema'] | undefined {
  return isObject(value) ? value : undefined
}

// One Ajv for every form checked in this process: making one compiles Ajv's meta-schemas (~0.1 s), which twenty
// launches at start, or a studio checking as a person types, would pay each time.
let formCheckAjv: ReturnType<typeof createRegistrationAjv> | undefined
// The forms (schema and uiSchema) found sound in this process: twenty launches with one form compile it once.
const soundForms = new Set<string>()

function checkFormSchemaCompiles(schema: Json, uiSchema: unknown): Finding[] {
  const key = JSON.stringify([schema, uiSchema])
  if (soundForms.has(key)) return []
  const findings = findFormSchemaProblems(schema, uiSchema)
  if (findings.length === 0) {
    if (soundForms.size >= 50) soundForms.delete(soundForms.values().next().value!)
    soundForms.add(key)
  }
  return findings
}

function findFormSchemaProblems(schema: Json, uiSchema: unknown): Finding[] {
  const ajv = (formCheckAjv ??= createRegistrationAjv({ logger: false }))
  if (!ajv.validateSchema(schema)) {
    return explainAjvErrors(ajv.errors ?? [], schema, ['form', 'schema']).map((finding) => ({
      ...finding,
      message: `The form's schema is broken: ${finding.message}`,
    }))
  }
  const findings: Finding[] = []
  const known = Object.keys(ajv.formats)
  const properties = isObject(schema.properties) ? schema.properties : {}
  for (const [field, fieldSchema] of Object.entries(properties)) {
    if (!isObject(fieldSchema) || typeof fieldSchema.format !== 'string' || known.includes(fieldSchema.format)) continue
    const meant = closest(fieldSchema.format, known)
    findings.push({
      at: ['form', 'schema', 'properties', field, 'format'],
      message: `form.schema.properties.${field}.format '${fieldSchema.format}' is not a format the form knows${meant ? `; did you mean '${meant}'?` : '.'}`,
      fix: `Use a known format, such as 'email', 'uri' or 'date', or delete "format".`,
    })
  }
  if (findings.length) return findings
  const checked = withPlainTextRule(schema as RegistrationRules['schema'], uiSchemaOf(uiSchema))
  try {
    ajv.compile(checked)
  } catch (error) {
    return [
      {
        at: ['form', 'schema'],
        message: `The form's schema cannot be used: ${(error as Error).message}.`,
        fix: 'Correct the part of form.schema the message names (a "$ref" must point at a definition inside the schema).',
      },
    ]
  } finally {
    // Not kept: the next config's form may have the same $id, and a long-running studio checks many texts.
    ajv.removeSchema(checked)
  }
  return []
}

/** A key of form.messages or form.uiSchema that names no field of the form. */
function unknownFormField(part: 'messages' | 'uiSchema', what: string, key: string, fields: string[]): Finding {
  const meant = closest(key, fields)
  return {
    at: ['form', part, key],
    onKey: true,
    message: `form.${part} has ${what} for '${key}', but the form has no such field${meant ? `; did you mean '${meant}'?` : '.'}`,
    fix: `Use the field names of form.schema.properties: ${listWords(fields)}.`,
  }
}

function checkUiSchema(uiSchema: Json, fields: string[], conditional: string[]): Finding[] {
  const findings: Finding[] = []
  for (const key of Object.keys(uiSchema)) {
    if (key.startsWith('ui:') || fields.includes(key)) continue
    findings.push(unknownFormField('uiSchema', 'settings', key, fields))
  }
  const order = uiSchema['ui:order']
  if (Array.isArray(order)) {
    order.forEach((name, i) => {
      if (typeof name === 'string' && conditional.includes(name)) {
        findings.push({
          at: ['form', 'uiSchema', 'ui:order', i],
          message: `form.uiSchema["ui:order"] lists '${name}', a field that only appears under a condition: while it is hidden, the form would not show at all.`,
          fix: `Take "${name}" out of the list and keep "*" in it: the field then appears where "*" is, when its condition is met.`,
        })
        return
      }
      if (typeof name !== 'string' || name === '*' || fields.includes(name)) return
      const meant = closest(name, fields)
      findings.push({
        at: ['form', 'uiSchema', 'ui:order', i],
        message: `form.uiSchema["ui:order"] lists '${name}', but the form has no such field${meant ? `; did you mean '${meant}'?` : '.'}`,
        fix: `List only the form's fields: ${listWords(fields)}.`,
      })
    })
    // react-jsonschema-form refuses to render when the order leaves a field out and has no "*".
    const left = fields.filter((field) => !order.includes(field) && !conditional.includes(field))
    if (conditional.length && !order.includes('*')) {
      findings.push({
        at: ['form', 'uiSchema', 'ui:order'],
        message: `form.uiSchema["ui:order"] has no "*": ${listWords(conditional.map((f) => `'${f}'`))} ${conditional.length === 1 ? 'appears' : 'appear'} only under a condition, and then the form would not show at all.`,
        fix: 'Add "*" to the list where those fields should appear.',
      })
    }
    if (left.length && !order.includes('*')) {
      findings.push({
        at: ['form', 'uiSchema', 'ui:order'],
        message: `form.uiSchema["ui:order"] leaves out ${listWords(left.map((f) => `'${f}'`))}: the form would not show at all.`,
        fix: `Add ${listWords(left.map((f) => `"${f}"`))} to the list where they should appear (or "*" for "the rest here").`,
      })
    }
  }
  return findings
}

/**
 * A home types section's "left" words (issue 45): leftTexts.left must say where the number goes ({count}), or every
 * card would show the same words whatever is left; leftTexts with no card counting models would never be shown.
 */
export function checkLeftTexts(data: Json): Finding[] {
  const sections = Array.isArray(data.sections) ? data.sections : []
  const findings: Finding[] = []
  sections.forEach((section, i) => {
    if (!isObject(section) || section.type !== 'home-types' || !isObject(section.leftTexts)) return
    const left = section.leftTexts.left
    if (typeof left === 'string' && left.trim() !== '' && !left.includes('{count}'))
      findings.push({
        at: ['sections', i, 'leftTexts', 'left'],
        message: `"${left}" does not say where the number of lots left goes.`,
        fix: 'Write {count} where the number goes, e.g. "{count} left".',
      })
    const cards = Array.isArray(section.cards) ? section.cards : []
    if (!cards.some((card) => isObject(card) && Array.isArray(card.models)))
      findings.push({
        at: ['sections', i, 'leftTexts'],
        onKey: true,
        message: 'No card of this section counts models, so these words are never shown.',
        fix: 'Give a card the models it counts (e.g. "models": ["Maple", "Birch"]), or delete leftTexts.',
      })
  })
  return findings
}
