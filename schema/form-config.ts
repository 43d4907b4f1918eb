import type { JSONSchema } from 'json-schema-to-ts'
import type { FromConfigSchema } from './parts.ts'
import { noScriptPagesSchema } from './no-script-pages.ts'

/** The rules a form message can be written for (form.messages.<field>.<rule>), read by the checker too. */
export const messageRuleKeywords = [
  'required',
  'minLength',
  'maxLength',
  'format',
  'pattern',
  'enum',
  'type',
  'const',
  'minimum',
  'maximum',
  'plainText',
] as const

/** The registration dialog that opens by itself. */
export const modalSchema = {
  type: 'object',
  title: 'Registration dialog',
  description: 'The dialog holding the registration form.',
  properties: {
    title: {
      type: 'string',
      minLength: 1,
      title: 'Title',
      description: 'The dialog heading.',
      examples: ['Register for VIP Access'],
    },
    intro: { type: 'string', minLength: 1, title: 'Intro', description: 'A sentence under the title.' },
    openDelayMs: {
      type: 'integer',
      minimum: 0,
      maximum: 600000,
      title: 'Open after (ms)',
      description: 'How long after the page loads the dialog opens by itself, in milliseconds; 0 opens it at once.',
      default: 1000,
    },
    snoozeDays: {
      type: 'integer',
      minimum: 0,
      maximum: 365,
      title: 'Rest after closing (days)',
      description:
        'After a visitor closes the dialog, it does not open by itself again in their browser for this many days (0: it opens on every load). After a registration it never opens by itself again there. The Register buttons always open it.',
      default: 0,
      examples: [7],
    },
    closeLabel: {
      type: 'string',
      minLength: 1,
      title: 'Close button label',
      description: 'Read by screen readers, e.g. "Close".',
    },
    opensByItself: {
      type: 'boolean',
      title: 'Opens by itself',
      description:
        'false: the dialog never opens by itself (the buttons still open it). Usually set in a phase, e.g. while the launch is sold out.',
      default: true,
    },
  },
  required: ['title', 'openDelayMs', 'closeLabel'],
  additionalProperties: false,
} as const satisfies JSONSchema
export type ModalProps = FromConfigSchema<typeof modalSchema>

const toastSchema = {
  type: 'object',
  title: 'Notice',
  description: 'A short notice shown at the edge of the screen.',
  properties: {
    title: { type: 'string', minLength: 1, title: 'Title', description: 'The first, bold line.' },
    text: { type: 'string', minLength: 1, title: 'Text', description: 'The line under it.' },
  },
  required: ['title', 'text'],
  additionalProperties: false,
} as const satisfies JSONSchema
/** The registration form: its JSON Schema, layout, messages and texts. */
export const formSchema = {
  type: 'object',
  title: 'Registration form',
  description: 'The VIP form, shown on the page and in the dialog. The same schema checks registrations on the server.',
  properties: {
    schema: {
      type: 'object',
      title: 'Fields',
      description:
        'A JSON Schema (draft-07) of an object: one property per field. Rules such as "maxLength" are checked in the browser and again on the server.',
      properties: {
        type: { const: 'object', title: 'Type', description: 'Always "object".' },
        properties: {
          type: 'object',
          title: 'Fields',
          description: 'One entry per field, keyed by the name the server stores it under.',
          additionalProperties: {
            type: 'object',
            title: 'Field',
            description: 'A JSON Schema for one field, e.g. { "type": "string", "maxLength": 100 }.',
          },
        },
        required: {
          type: 'array',
          title: 'Required fields',
          description: 'The names of the fields a visitor must fill in.',
          items: { type: 'string' },
        },
      },
      required: ['type', 'properties'],
    },
    uiSchema: {
      type: 'object',
      title: 'Layout',
      description:
        'How each field is shown (react-jsonschema-form uiSchema): "ui:title", "ui:widget", "ui:placeholder", "ui:autocomplete", "ui:options".',
    },
    messages: {
      type: 'object',
      title: 'Messages',
      description:
        'What a visitor reads under a field when a rule fails, by field and rule, e.g. { "name": { "required": "Name is required" } }.',
      additionalProperties: {
        type: 'object',
        title: 'Messages of one field',
        description:
          'By rule name: "required", "minLength", "maxLength", "format", "pattern", "enum", "type", "const", "minimum", "maximum", ' +
          'and "plainText" (every text field refuses control and invisible characters; default message "Remove the invisible or control characters").',
        additionalProperties: {
          type: 'string',
          minLength: 1,
          title: 'Message',
          description: 'What the visitor reads when this rule fails.',
        },
        propertyNames: {
          enum: messageRuleKeywords,
        },
      },
    },
    submitLabel: {
      type: 'string',
      minLength: 1,
      title: 'Button label',
      description: 'The submit button text.',
      examples: ['Register Now'],
    },
    submittingLabel: {
      type: 'string',
      minLength: 1,
      title: 'Button label while sending',
      description: 'Shown while the form is being sent.',
      examples: ['Submitting…'],
    },
    consent: {
      type: 'string',
      minLength: 1,
      title: 'Consent note',
      description: 'Shown under the form, and stored with each registration.',
    },
    expressConsentField: {
      type: 'string',
      minLength: 1,
      title: 'Express consent checkbox',
      description:
        'The name of an optional yes/no field in form.schema ({ "type": "boolean", "title": "Send me updates about …" }, never "default": true): the unticked box a visitor ticks to give express consent to marketing (CASL). Without it, or left unticked, a registration is implied consent, which lasts six months.',
      examples: ['updates'],
    },
    toasts: {
      type: 'object',
      title: 'Notices',
      description: 'The notices shown after sending.',
      properties: {
        success: { ...toastSchema, title: 'Success notice', description: 'Shown when the registration is received.' },
        error: { ...toastSchema, title: 'Failure notice', description: 'Shown when it could not be sent.' },
      },
      required: ['success', 'error'],
      additionalProperties: false,
    },
    noScript: noScriptPagesSchema,
  },
  required: ['schema', 'uiSchema', 'messages', 'submitLabel', 'submittingLabel', 'consent', 'toasts'],
  additionalProperties: false,
} as const satisfies JSONSchema
export type FormConfig = FromConfigSchema<typeof formSchema>

/**
 * The part of the form config the page itself needs (the form's own code brings the rest), and the link beside the
 * consent note.
 */
export type ClientFormConfig = Pick<FormConfig, 'consent' | 'toasts' | 'noScript'> & {
  privacyLink: { label: string; href: string }
}

/** What only the form's own (lazily loaded) code needs; the page bundle gets the rest of `form`. */
export type FormUi = Pick<FormConfig, 'uiSchema' | 'messages' | 'submitLabel' | 'submittingLabel'>
