import type { JSONSchema } from 'json-schema-to-ts'

/** The texts of the pages a registration sent without JavaScript lands on, where the config gives none. */
export const noScriptPageDefaults = {
  backLabel: 'Back to the page',
  checkTitle: 'Please check your details',
  checkText: 'Some of the details you entered need attention. Go back to the form: what you typed is still there.',
  checkBackLabel: 'Back to the form',
} as const

/** The pages a registration sent without JavaScript lands on (the thanks take the success notice's words). */
export const noScriptPagesSchema = {
  type: 'object',
  title: 'Pages without JavaScript',
  description:
    'A visitor whose browser runs no JavaScript still registers: the form is sent as a plain web form and answered with a page. The thank-you page shows the success notice with a link back; these are its other words.',
  properties: {
    backLabel: {
      type: 'string',
      minLength: 1,
      title: 'Link back (thank-you page)',
      description: 'The link from the thank-you page back to the home page.',
      default: noScriptPageDefaults.backLabel,
    },
    checkTitle: {
      type: 'string',
      minLength: 1,
      title: 'Heading (check your details)',
      description:
        'Where the form cannot be shown again with its messages (on Supabase), the heading of the page that asks to correct it.',
      default: noScriptPageDefaults.checkTitle,
    },
    checkText: {
      type: 'string',
      minLength: 1,
      title: 'Text (check your details)',
      description: 'The sentence under that heading.',
      default: noScriptPageDefaults.checkText,
    },
    checkBackLabel: {
      type: 'string',
      minLength: 1,
      title: 'Link back (check your details)',
      description: 'The link back to the filled form.',
      default: noScriptPageDefaults.checkBackLabel,
    },
  },
  additionalProperties: false,
} as const satisfies JSONSchema
