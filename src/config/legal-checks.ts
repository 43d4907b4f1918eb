import { brokerageNamePattern } from '../../schema/site.ts'
import { orderedFormFields } from '../../schema/privacy.ts'
import { describePath, describeValue, listWords, type Finding } from './describe.ts'
import type { Segment } from './json-source.ts'

// What the law asks of every page and message of a launch (Ontario's TRESA and RECO's advertising rules, PIPEDA,
// CASL), beyond what the schema says: the brokerage's registered name, and a privacy page when the form collects
// personal data.

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

const brokerageName = new RegExp(brokerageNamePattern)

/** Whether a brokerage name has the word "Brokerage" in it, as RECO registers it. */
export function isRegisteredBrokerageName(name: string): boolean {
  return brokerageName.test(name)
}

/**
 * The finding for a site.brokerage without the word "Brokerage" (the schema's pattern refuses it; these are its words).
 */
export function brokerageNameFinding(at: Segment[], value: unknown): Finding {
  return {
    at,
    message: `${describePath(at)} ${describeValue(value)} is not a registered brokerage name: it does not contain the word "Brokerage". Ontario's TRESA and RECO's advertising rules ask for the brokerage's registered name on every page and e-mail.`,
    fix: 'Write the name exactly as RECO registered it, with the word "Brokerage", such as "Northgate Realty Inc., Brokerage" (RECO\'s public register lists it).',
  }
}

// Autocomplete tokens and input kinds that say a field asks for a person's own details.
const personalTokens =
  /^(name|given-name|additional-name|family-name|nickname|email|tel|tel-national|street-address|address-line\d|postal-code|bday)$/
const personalNames = /name|e-?mail|phone|tel|address|postal/i

/** The labels of the form's fields that ask for personal data (name, e-mail, phone, address …), in the form's order. */
function personalFieldLabels(form: Json): string[] {
  const ui = isObject(form.uiSchema) ? form.uiSchema : {}
  return orderedFormFields({ schema: form.schema, uiSchema: ui })
    .filter(({ field, schema }) => {
      const own = isObject(ui[field]) ? ui[field] : {}
      const options = isObject(own['ui:options']) ? own['ui:options'] : {}
      return (
        schema.format === 'email' ||
        (typeof own['ui:autocomplete'] === 'string' && personalTokens.test(own['ui:autocomplete'])) ||
        own['ui:widget'] === 'email' ||
        options.inputType === 'tel' ||
        personalNames.test(field)
      )
    })
    .map(({ label }) => label)
}

/** A launch whose form collects personal data must have a privacy page (`privacy`): refused otherwise, at "form". */
export function checkPrivacy(data: Json): Finding[] {
  if (data.privacy !== undefined || !isObject(data.form)) return []
  const personal = personalFieldLabels(data.form)
  if (personal.length === 0) return []
  return [
    {
      at: ['form'],
      onKey: true,
      message: `The form collects personal data (${listWords(personal)}), but the config has no "privacy" block, so the launch would have no privacy page to link beside the form, in the footer and in the reply.`,
      fix: 'Add a "privacy" block after "form", at least { "linkLabel": "Privacy" }: every text left out is written from the config (the brokerage, its e-mail, the form\'s labels). Then read the page at /privacy and have the brokerage approve it.',
    },
  ]
}

/**
 * form.expressConsentField names the checkbox that records express consent (CASL): it must be an optional boolean
 * field of the form, unticked until the visitor ticks it (a box ticked in advance is not consent).
 */
export function checkExpressConsent(data: Json): Finding[] {
  const form = isObject(data.form) ? data.form : {}
  const name = form.expressConsentField
  if (typeof name !== 'string' || name === '') return []
  const schema = isObject(form.schema) ? form.schema : {}
  const field = isObject(schema.properties) ? schema.properties[name] : undefined
  const at: Segment[] = ['form', 'expressConsentField']
  if (!isObject(field)) {
    return [
      {
        at,
        message: `${describePath(at)} names ${describeValue(name)}, but form.schema.properties has no such field, so no visitor could ever give express consent.`,
        fix: `Add the checkbox to form.schema.properties: "${name}": { "type": "boolean", "title": "Send me updates about the development" }, or correct the name.`,
      },
    ]
  }
  const required = Array.isArray(schema.required) && schema.required.includes(name)
  if (field.type !== 'boolean' || required) {
    return [
      {
        at,
        message: `${describePath(at)} names ${describeValue(name)}, which is ${required ? 'a required field' : 'not a yes/no field'}: express consent is an optional box the visitor ticks.`,
        fix: `Make form.schema.properties.${name} { "type": "boolean", "title": "…" }${required ? ` and take "${name}" out of form.schema.required` : ''}.`,
      },
    ]
  }
  if (field.default === true) {
    return [
      {
        at: ['form', 'schema', 'properties', name, 'default'],
        message: `form.schema.properties.${name} is ticked in advance ("default": true): under CASL a box ticked for the visitor is not express consent.`,
        fix: 'Delete "default": true (or write false): the box starts unticked and only the visitor ticks it.',
      },
    ]
  }
  return []
}
