import type { JSONSchema } from 'json-schema-to-ts'

/** The texts of the pages a registration sent without JavaScript lands on, where the config gives none. */
export const noScriptPageDefaults = {
  backLabel: 'Back to the page',
  checkTitle: 'Please check your details',
  checkText: 'Some of the details you entered need attention. Go back to the form: what you typed is still there.',
  checkBackLabel: 'Back to the form',
  otherFieldsHeading: 'More details',
  answerBackLabel: 'Back',
  tooManyText: 'Too many registrations from this address. Please wait a minute and try again.',
  notSavedText: 'Your registration could not be saved. Please try again in a moment.',
  failedText: 'The registration could not be saved just now. Please try again in a moment.',
} as const

const text = <D extends string>(title: string, description: string, fallback: D) =>
  ({ type: 'string', minLength: 1, title, description, default: fallback }) as const

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
    branchHeadings: {
      type: 'object',
      title: 'Headings of the fields for one answer',
      description:
        'Without JavaScript the form shows from the start the fields that only one answer asks for (e.g. a realtor\'s), each group under a heading, never required of anyone else. By "field=answer", as in the form schema\'s "if", e.g. { "isRealtor=yes": "If you are a realtor" }.',
      propertyNames: { pattern: '^[^=]+=.+$' },
      additionalProperties: { type: 'string', minLength: 1, title: 'Heading', description: "The group's heading." },
      examples: [{ 'isRealtor=yes': 'If you are a realtor' }],
    },
    otherFieldsHeading: text(
      'Heading of other conditional fields',
      'The heading of a group of such fields that "Headings of the fields for one answer" does not name.',
      noScriptPageDefaults.otherFieldsHeading,
    ),
    answerBackLabel: text(
      'Link back (other answers)',
      'The link back to the page under an answer that is not about the fields (too many tries, a failure).',
      noScriptPageDefaults.answerBackLabel,
    ),
    tooManyText: text(
      'Text (too many registrations)',
      'When one address sends too many registrations in a minute.',
      noScriptPageDefaults.tooManyText,
    ),
    notSavedText: text(
      'Text (not saved)',
      'When the registration could not be stored.',
      noScriptPageDefaults.notSavedText,
    ),
    failedText: text('Text (failure)', 'When anything else went wrong on the server.', noScriptPageDefaults.failedText),
  },
  additionalProperties: false,
} as const satisfies JSONSchema
