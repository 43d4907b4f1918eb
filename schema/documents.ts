import type { JSONSchema } from 'json-schema-to-ts'
import type { FromConfigSchema } from './parts.ts'

/**
 * A launch's documents (page.config.json `documents`): the price list, floor plans, feature sheet, as PDFs in the
 * launch's folder (never under public/: a document has no public address). The reply carries a personal, signed link
 * to each document offered in the registrant's phase; each opening is logged on the lead. Schema and pure helpers only:
 * the files are checked by src/config, served by src/server/delivery/document-routes.ts.
 */

const text = (title: string, description: string) => ({ type: 'string', minLength: 1, title, description }) as const

/** How many days a document link works when the config names no number. */
export const defaultDocumentLinkDays = 30

/** The page a document link that no longer works shows, and the fresh-link e-mail: each text optional. */
const documentTextsSchema = {
  type: 'object',
  title: 'Texts',
  description:
    'The words of the page an expired or wrong document link shows, and of the e-mail with fresh links. Every text is optional: a text left out is the default shown in its description.',
  properties: {
    pageTitle: text('Page title', 'The browser tab title of that page. Default: "Your documents".'),
    heading: text('Heading', 'Default: "This link no longer works".'),
    text: text(
      'Text',
      'Default: "Document links work for a while only. We can send fresh links to the address you registered with."',
    ),
    button: text('Button', 'Default: "Send me a fresh link".'),
    sentHeading: text('Heading once asked', 'Default: "Check your inbox".'),
    sentText: text(
      'Text once asked',
      'Default: "If this link was sent to you, fresh links are on their way to the address you registered with."',
    ),
    unavailableText: text(
      'Text for a document no longer offered',
      'Default: "This document is not available any more. Reply to our e-mail and we will help."',
    ),
    tooManyText: text(
      'Text when asked too often',
      'When one address asks for fresh links too often. Default: "Too many requests from this address. Please wait a minute and try again."',
    ),
    failedText: text(
      'Text when fresh links could not be sent',
      'Default: "Fresh links could not be sent just now. Please try again in a moment."',
    ),
    subject: text(
      'Subject of the fresh-link e-mail',
      '{site} is the development name. Default: "Your documents for {site}".',
    ),
    intro: text('First line of the fresh-link e-mail', 'Default: "Here are fresh links to your documents:".'),
  },
  additionalProperties: false,
} as const satisfies JSONSchema

/** page.config.json `documents`. */
export const documentsSchema = {
  type: 'object',
  title: 'Documents',
  description:
    'The PDFs registrants receive in their reply (price list, floor plans, feature sheet). Each is a file in this launch\'s folder (e.g. documents/price-list.pdf beside page.config.json, never under public/, which anyone could download). The reply carries a personal link to each document offered in the registrant\'s phase; the leads page shows who opened what, and how often. Needs a "reply".',
  properties: {
    linkDays: {
      type: 'integer',
      minimum: 1,
      maximum: 365,
      title: 'Links work for (days)',
      description: `How many days a document link in a reply works. After that, the link offers to send fresh links to the registered address. Default: ${defaultDocumentLinkDays}.`,
      examples: [defaultDocumentLinkDays],
    },
    list: {
      type: 'array',
      minItems: 1,
      title: 'Documents',
      description: 'One entry per PDF, in the order the reply lists them.',
      items: {
        type: 'object',
        title: 'Document',
        description: 'One PDF.',
        properties: {
          title: { ...text('Title', 'What the reply and the leads page call it.'), examples: ['Price list'] },
          file: {
            type: 'string',
            pattern: '^[A-Za-z0-9_-]+(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*\\.pdf$',
            title: 'File',
            description:
              'The PDF\'s path from this launch\'s folder, e.g. "documents/price-list.pdf". Its name (price-list) names the document in links and logs, so each must be different.',
            examples: ['documents/price-list.pdf'],
          },
          phases: {
            type: 'array',
            items: { type: 'string', minLength: 1, description: 'A phase name (phases.list[].name).' },
            minItems: 1,
            uniqueItems: true,
            title: 'Offered in phases',
            description:
              'The phases whose registrants receive it, e.g. ["vip", "public"]. Leave out to offer it in every phase.',
          },
          audience: {
            type: 'string',
            enum: ['everyone', 'buyers', 'realtors'],
            title: 'For',
            description:
              'Who receives it: everyone (the default), only buyers, or only realtors (who answered Yes to "Are you a realtor?").',
          },
        },
        required: ['title', 'file'],
        additionalProperties: false,
      },
    },
    texts: documentTextsSchema,
  },
  required: ['list'],
  additionalProperties: false,
} as const satisfies JSONSchema
export type DocumentsConfig = FromConfigSchema<typeof documentsSchema>
type DocumentTextsConfig = FromConfigSchema<typeof documentTextsSchema>

/** Every text of the documents' page and fresh-link e-mail, decided. */
export type DocumentTexts = Required<DocumentTextsConfig>

const defaultTexts: DocumentTexts = {
  pageTitle: 'Your documents',
  heading: 'This link no longer works',
  text: 'Document links work for a while only. We can send fresh links to the address you registered with.',
  button: 'Send me a fresh link',
  sentHeading: 'Check your inbox',
  sentText: 'If this link was sent to you, fresh links are on their way to the address you registered with.',
  unavailableText: 'This document is not available any more. Reply to our e-mail and we will help.',
  tooManyText: 'Too many requests from this address. Please wait a minute and try again.',
  failedText: 'Fresh links could not be sent just now. Please try again in a moment.',
  subject: 'Your documents for {site}',
  intro: 'Here are fresh links to your documents:',
}

/** One document as the function knows it: its id (the file's name without .pdf), title, file and who gets it. */
export type FunctionDocument = {
  id: string
  title: string
  file: string
  phases?: string[]
  audience?: 'everyone' | 'buyers' | 'realtors'
}

/** The function's copy of a launch's documents. */
export type FunctionDocuments = { linkDays: number; list: FunctionDocument[]; texts: DocumentTexts }

/** A document's id: its file's name without the folder and ".pdf" ("documents/price-list.pdf" → "price-list"). */
export function documentIdOf(file: string): string {
  return (file.split('/').at(-1) ?? file).replace(/\.pdf$/i, '')
}

/** The function's view of a config's `documents`, every text decided. */
export function functionDocumentsOf(config: DocumentsConfig): FunctionDocuments {
  return {
    linkDays: config.linkDays ?? defaultDocumentLinkDays,
    list: config.list.map((d) => ({
      id: documentIdOf(d.file),
      title: d.title,
      file: d.file,
      ...(d.phases ? { phases: [...d.phases] } : {}),
      ...(d.audience && d.audience !== 'everyone' ? { audience: d.audience } : {}),
    })),
    texts: { ...defaultTexts, ...config.texts },
  }
}

/**
 * The documents a registrant is offered: those of their phase (a document naming no phases: every phase; a lead
 * without a phase: every document) and of their kind (buyer or realtor), in the config's order.
 */
export function documentsOffered(
  list: readonly FunctionDocument[],
  phase: string | null | undefined,
  realtor: boolean,
): FunctionDocument[] {
  return list.filter(
    (d) =>
      (d.phases === undefined || phase === null || phase === undefined || d.phases.includes(phase)) &&
      (d.audience === undefined || d.audience === 'everyone' || (d.audience === 'realtors') === realtor),
  )
}
