import type { JSONSchema } from 'json-schema-to-ts'
import type { FromConfigSchema } from './parts.ts'

const placeholderNote =
  'Write {field} for what the registrant typed in a form field, e.g. {name}; {site} is the development name.'

/** The e-mail each registrant receives after registering (optional: no reply when absent). */
export const replySchema = {
  type: 'object',
  title: 'Reply to the registrant',
  description:
    "The e-mail every registrant receives once the registration is stored: plain text and HTML, with what Canada's anti-spam law (CASL) asks of it (who sends it, a mailing address, a way to reach them, a one-click way to say no). Leave out to send none.",
  properties: {
    sender: {
      type: 'object',
      title: 'Sender',
      description: 'Who the e-mail comes from.',
      properties: {
        name: {
          type: 'string',
          minLength: 1,
          maxLength: 80,
          title: 'Name',
          description: 'The sender name registrants see.',
          examples: ['Maple Hollow VIP Team'],
        },
        email: {
          type: 'string',
          format: 'email',
          title: 'Address',
          description:
            'The From address when MAIL_FROM is not set (local try-out, .eml files). With MAIL_FROM set, its address is used and this name is shown with it.',
          examples: ['sales@example.com'],
        },
        replyTo: {
          type: 'string',
          format: 'email',
          title: 'Replies go to',
          description: "Where a registrant's answer to the e-mail goes. Default: the site's contact e-mail.",
        },
      },
      required: ['name', 'email'],
      additionalProperties: false,
    },
    subject: {
      type: 'string',
      minLength: 1,
      maxLength: 150,
      title: 'Subject',
      description: `The subject line. ${placeholderNote}`,
      examples: ['Your VIP registration for {site}'],
    },
    greeting: {
      type: 'string',
      minLength: 1,
      title: 'Greeting',
      description: `The first line. ${placeholderNote}`,
      examples: ['Hi {name},'],
    },
    paragraphs: {
      type: 'array',
      title: 'Paragraphs',
      description: `The body, one string per paragraph. ${placeholderNote}`,
      items: { type: 'string', minLength: 1, description: 'One paragraph.' },
      minItems: 1,
    },
    documentsHeading: {
      type: 'string',
      minLength: 1,
      title: 'Documents heading',
      description: 'The line above the list of documents (the launch\'s "documents", then these links).',
      examples: ['Your documents:'],
    },
    documents: {
      type: 'array',
      title: 'Links',
      description:
        "Plain links to send along, to pages elsewhere (a builder's brochure on its own site). Optional. The launch's own PDFs belong in \"documents\" at the top of the file: each registrant then gets a personal link, and the leads page shows who opened it. npm run migrate moves a link to this launch's own files there.",
      items: {
        type: 'object',
        title: 'Document',
        description: 'One link.',
        properties: {
          label: {
            type: 'string',
            minLength: 1,
            title: 'Label',
            description: 'What the link is, e.g. "Price list (PDF)".',
          },
          url: {
            type: 'string',
            format: 'uri',
            pattern: '^https://',
            title: 'Address',
            description: 'The full https:// address of the document.',
          },
        },
        required: ['label', 'url'],
        additionalProperties: false,
      },
    },
    realtor: {
      type: 'object',
      title: 'Reply to realtors',
      description:
        'Optional: what a realtor (who answered Yes to "Are you a realtor?") receives instead of the buyers\' words: the broker package and the co-operation terms. The rest (sender, signature, brokerage contact, unsubscribe) is the reply\'s.',
      properties: {
        subject: {
          type: 'string',
          minLength: 1,
          maxLength: 200,
          title: 'Subject',
          description: "The realtor's subject line. {site} is the development name.",
          examples: ['Your broker package for {site}'],
        },
        greeting: {
          type: 'string',
          minLength: 1,
          title: 'Greeting',
          description: "Optional: the first line; without it, the reply's greeting. {name} greets by name.",
        },
        paragraphs: {
          type: 'array',
          title: 'Paragraphs',
          description: 'The body for realtors, one paragraph per item.',
          items: { type: 'string', minLength: 1, description: 'One paragraph.' },
          minItems: 1,
        },
        cooperation: {
          type: 'string',
          minLength: 1,
          title: 'Co-operation terms',
          description:
            'The commission offered to co-operating brokerages and its conditions, exactly as the builder words them. Printed after the paragraphs.',
          examples: [
            'Co-operation: 2.5% of the base purchase price on the first $500,000 and 1% on the balance, paid to the brokerage that registered the buyer first.',
          ],
        },
        documentsHeading: {
          type: 'string',
          minLength: 1,
          title: 'Documents heading',
          description: 'Optional: the line above the broker package links.',
        },
        documents: {
          type: 'array',
          title: 'Broker package',
          description:
            'Plain links for realtors, to pages elsewhere. Without it, the reply\'s links. The launch\'s own PDFs (the broker package) belong in "documents", with "audience": "realtors".',
          items: {
            type: 'object',
            title: 'Document',
            description: 'One link.',
            properties: {
              label: {
                type: 'string',
                minLength: 1,
                title: 'Label',
                description: 'What the link is, e.g. "Broker package (PDF)".',
              },
              url: {
                type: 'string',
                format: 'uri',
                pattern: '^https://',
                title: 'Address',
                description: 'The full https:// address of the document.',
              },
            },
            required: ['label', 'url'],
            additionalProperties: false,
          },
        },
      },
      required: ['subject', 'paragraphs', 'cooperation'],
      additionalProperties: false,
    },
    signature: {
      type: 'array',
      title: 'Signature',
      description: "The lines under the body, e.g. the team's name and the brokerage.",
      items: { type: 'string', minLength: 1, description: 'One line.' },
      minItems: 1,
    },
    brokerage: {
      type: 'object',
      title: 'Brokerage contact (CASL)',
      description:
        'How to reach the brokerage named in site.brokerage, printed at the foot of every reply: CASL asks for a mailing address and a phone number, e-mail or web address.',
      properties: {
        mailingAddress: {
          type: 'string',
          minLength: 10,
          title: 'Mailing address',
          description: 'Street, town, province, postal code, on one line.',
          examples: ['100 Example Street, Suite 200, Alderbrook, ON K0K 0A0'],
        },
        phone: {
          type: 'string',
          minLength: 7,
          title: 'Phone',
          description: 'A phone number as people read it.',
          examples: ['(555) 555-0100'],
        },
        email: {
          type: 'string',
          format: 'email',
          title: 'E-mail',
          description: 'An e-mail address that reaches the brokerage.',
        },
        website: {
          type: 'string',
          format: 'uri',
          pattern: '^https?://',
          title: 'Website',
          description: "Optional: the brokerage's web address.",
        },
      },
      required: ['mailingAddress', 'phone', 'email'],
      additionalProperties: false,
    },
    unsubscribe: {
      type: 'object',
      title: 'Unsubscribe',
      description:
        'The way to say no to further messages: a sentence and link at the foot of every reply, and the page the link opens (its one button records the withdrawal).',
      properties: {
        notice: {
          type: 'string',
          minLength: 1,
          title: 'Footer sentence',
          description:
            'Why the registrant receives this, and how to stop it; the link follows it. {site} is the development name.',
          examples: [
            'You receive this because you registered for VIP updates on {site}. To receive no more messages about {site}, use this link:',
          ],
        },
        linkLabel: {
          type: 'string',
          minLength: 1,
          title: 'Link label',
          description: "The link's text in the HTML e-mail.",
          examples: ['Unsubscribe'],
        },
        pageTitle: {
          type: 'string',
          minLength: 1,
          title: 'Page title',
          description: 'The browser tab title of the unsubscribe page.',
        },
        heading: {
          type: 'string',
          minLength: 1,
          title: 'Heading',
          description: 'The question the page asks.',
          examples: ['Stop messages about {site}?'],
        },
        text: { type: 'string', minLength: 1, title: 'Text', description: 'What the button does.' },
        button: {
          type: 'string',
          minLength: 1,
          title: 'Button label',
          description: 'The one button that records the withdrawal.',
          examples: ['Unsubscribe'],
        },
        doneHeading: {
          type: 'string',
          minLength: 1,
          title: 'Done heading',
          description: 'Shown once the withdrawal is recorded.',
          examples: ['You are unsubscribed'],
        },
        doneText: { type: 'string', minLength: 1, title: 'Done text', description: 'The sentence under it.' },
        invalidText: {
          type: 'string',
          minLength: 1,
          title: 'Broken link text',
          description: 'Shown when the link is damaged (cut by the mail program or altered): nothing is recorded.',
        },
        errorText: {
          type: 'string',
          minLength: 1,
          title: 'Failure text',
          description: 'Shown when the withdrawal could not be recorded just now (the database did not answer).',
        },
      },
      required: [
        'notice',
        'linkLabel',
        'pageTitle',
        'heading',
        'text',
        'button',
        'doneHeading',
        'doneText',
        'invalidText',
        'errorText',
      ],
      additionalProperties: false,
    },
  },
  required: ['sender', 'subject', 'greeting', 'paragraphs', 'signature', 'brokerage', 'unsubscribe'],
  additionalProperties: false,
} as const satisfies JSONSchema
export type ReplyConfig = FromConfigSchema<typeof replySchema>
