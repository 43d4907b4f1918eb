import type { JSONSchema } from 'json-schema-to-ts'
import { imageSchema, type FromConfigSchema } from './parts.ts'
import { phasesSchema, type PhasesConfig } from './phases.ts'
import { privacySchema, type PrivacyConfig, type PrivacyPage } from './privacy.ts'
import { documentsSchema, type DocumentsConfig } from './documents.ts'
import { footerSchema, headerSchema, sectionsSchema, type Section } from './sections.ts'

/**
 * What a brokerage's registered name must contain: the word "Brokerage" (RECO registers names such as "Example Realty
 * Inc., Brokerage"), in any case.
 */
export const brokerageNamePattern = '\\b[Bb][Rr][Oo][Kk][Ee][Rr][Aa][Gg][Ee]\\b'

/** Facts about the development and the brokerage that several sections show. */
export const siteSchema = {
  type: 'object',
  title: 'Site',
  description: 'Facts used across the page: names, phone, e-mail, address, language.',
  properties: {
    name: {
      type: 'string',
      minLength: 1,
      title: 'Development name',
      description: 'The name of the development, as written on the page.',
      examples: ['Maple Hollow Estates'],
    },
    brokerage: {
      type: 'string',
      minLength: 1,
      pattern: brokerageNamePattern,
      title: 'Brokerage',
      description:
        'The registered name of the sales brokerage that runs this site, exactly as registered with RECO, with the word "Brokerage" (e.g. "Northgate Realty Inc., Brokerage"). Ontario\'s TRESA and RECO\'s advertising rules ask for it on every page and message: it is shown in the footer of every page and in every e-mail.',
      examples: ['Example Realty Inc., Brokerage'],
    },
    lang: {
      type: 'string',
      title: 'Language',
      description: 'The language of the page, as a language tag.',
      pattern: '^[a-z]{2}(-[A-Z]{2})?$',
      default: 'en-CA',
      examples: ['en-CA', 'fr-CA'],
    },
    phone: {
      type: 'object',
      title: 'Sales phone',
      description: 'The sales phone number: how it is shown, and how it is dialled.',
      properties: {
        display: {
          type: 'string',
          minLength: 7,
          title: 'Shown as',
          description: 'The number as visitors read it.',
          examples: ['(555) 555-0100'],
        },
        dial: {
          type: 'string',
          title: 'Dialled as',
          description: 'The number in international form: "+", country code, digits only.',
          pattern: '^\\+[1-9][0-9]{6,14}$',
          examples: ['+15555550100'],
        },
      },
      required: ['display', 'dial'],
      additionalProperties: false,
    },
    email: {
      type: 'string',
      format: 'email',
      title: 'Contact e-mail',
      description: 'The e-mail address shown on the page; new registrations are sent here unless NOTIFY_EMAIL is set.',
      examples: ['sales@example.com'],
    },
    location: {
      type: 'string',
      minLength: 1,
      title: 'Location',
      description: 'Where the development is, in a few words (street intersection, town).',
      examples: ['Maple Line & Concession Road 4, Alderbrook, ON'],
    },
    themeColor: {
      type: 'string',
      pattern: '^#[0-9a-fA-F]{6}$',
      title: 'Theme colour',
      description: 'The colour phones use for the browser bar.',
      examples: ['#1f3d2b'],
    },
    analytics: {
      type: 'object',
      title: 'Analytics',
      description:
        'Optional. With a Google Tag Manager container id, a successful registration pushes a "generate_lead" event to window.dataLayer. Leave out to track nothing.',
      properties: {
        gtmId: {
          type: 'string',
          pattern: '^GTM-[A-Z0-9]+$',
          title: 'Tag Manager container',
          description: 'The container id, e.g. "GTM-ABC1234".',
        },
      },
      required: ['gtmId'],
      additionalProperties: false,
    },
  },
  required: ['name', 'brokerage', 'lang', 'phone', 'email', 'location'],
  additionalProperties: false,
} as const satisfies JSONSchema
export type Site = FromConfigSchema<typeof siteSchema>

/** Search-engine and sharing tags, and the structured data (JSON-LD). */
export const seoSchema = {
  type: 'object',
  title: 'SEO',
  description: 'What search engines and link previews show.',
  properties: {
    title: {
      type: 'string',
      minLength: 1,
      maxLength: 70,
      title: 'Page title',
      description: 'The browser tab and search result title (70 characters at most).',
      examples: ['Maple Hollow Estates | New Homes in Alderbrook, ON'],
    },
    description: {
      type: 'string',
      minLength: 50,
      maxLength: 200,
      title: 'Description',
      description: 'The search result summary: one or two sentences (50 to 200 characters).',
    },
    canonicalUrl: {
      type: 'string',
      format: 'uri',
      pattern: '^https?://',
      title: 'Canonical address',
      description:
        'The full public address of the page, ending with "/". Used for the canonical link, the sitemap and previews.',
      examples: ['https://maplehollow.example.com/'],
    },
    ogImage: {
      ...imageSchema,
      title: 'Preview image',
      description: 'The image shown when the page is shared (1200 × 630 is best).',
    },
    jsonLd: {
      type: 'object',
      title: 'Structured data',
      description:
        'The JSON-LD block for search engines, written as it will appear (schema.org vocabulary, e.g. a RealEstateAgent).',
      properties: {
        '@context': { const: 'https://schema.org', title: 'Vocabulary', description: 'Always "https://schema.org".' },
        '@type': {
          type: 'string',
          minLength: 1,
          title: 'Kind of business',
          description: 'The schema.org type, e.g. "RealEstateAgent".',
          examples: ['RealEstateAgent'],
        },
      },
      required: ['@context', '@type'],
    },
  },
  required: ['title', 'description', 'canonicalUrl', 'ogImage', 'jsonLd'],
  additionalProperties: false,
} as const satisfies JSONSchema
export type Seo = FromConfigSchema<typeof seoSchema>

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

/** The texts of the pages a registration sent without JavaScript lands on, where the config gives none. */
export const noScriptPageDefaults = {
  backLabel: 'Back to the page',
  checkTitle: 'Please check your details',
  checkText: 'Some of the details you entered need attention. Go back to the form: what you typed is still there.',
  checkBackLabel: 'Back to the form',
} as const

/** The pages a registration sent without JavaScript lands on (the thanks take the success notice's words). */
const noScriptPagesSchema = {
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
          enum: [
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
          ],
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

/** The page shown for any address other than the home page. */
export const notFoundSchema = {
  type: 'object',
  title: 'Not-found page',
  description: 'Shown for any address other than "/".',
  properties: {
    title: { type: 'string', minLength: 1, title: 'Page title', description: 'The browser tab title.' },
    heading: { type: 'string', minLength: 1, title: 'Heading', description: 'The big heading.', examples: ['404'] },
    text: { type: 'string', minLength: 1, title: 'Text', description: 'The sentence under it.' },
    linkLabel: { type: 'string', minLength: 1, title: 'Link label', description: 'The link back to the home page.' },
  },
  required: ['title', 'heading', 'text', 'linkLabel'],
  additionalProperties: false,
} as const satisfies JSONSchema
export type NotFoundProps = FromConfigSchema<typeof notFoundSchema>

/**
 * The version of the page.config.json format this code reads. Raise it with every change that an existing config
 * would fail (a new required field, a rename), and teach src/config/config-migrations.ts to rewrite the older files.
 */
export const currentConfigVersion = 2

/** The follow-up statuses of the leads page when a launch names none (launch.leadStatuses): the first is every new lead's. */
export const defaultLeadStatuses = ['New', 'Contacted', 'Appointment booked', 'Purchased', 'Not interested'] as const

/** What makes this config one launch among several served from one checkout and one backend. */
export const launchSchema = {
  type: 'object',
  title: 'Launch',
  description: 'Which launch (development) this page is, and where its registrations go.',
  properties: {
    slug: {
      type: 'string',
      pattern: '^[a-z0-9][a-z0-9-]{0,62}$',
      title: 'Launch name',
      description:
        'A short name for this launch: lower-case letters, digits and dashes. A launch in launches/<name>/ must use its folder name. It is stored with every registration, names the built folder (dist/<name>/) and the local address (http://<name>.localhost:3000).',
      examples: ['maple-ridge'],
    },
    notifyEmail: {
      type: 'string',
      format: 'email',
      title: 'Notification e-mail',
      description:
        "Who is told of each new registration for this launch. Without it, the site's contact e-mail is used. NOTIFY_EMAIL on the server overrides both.",
      examples: ['leads@example.com'],
    },
    realtorEmail: {
      type: 'string',
      format: 'email',
      title: 'Co-op desk e-mail',
      description:
        'Who is told of each registration by a realtor (who answered Yes to "Are you a realtor?"): the co-op desk. Without it, realtors\' registrations go where the others do.',
      examples: ['coop@example.com'],
    },
    origins: {
      type: 'array',
      title: 'Other web addresses',
      description:
        'Further addresses (scheme://host, no path) where this page is published, e.g. a www. name or a static host. Pages there may register for this launch; the canonical address always may.',
      items: { type: 'string', pattern: '^https?://[^/?#\\s]+$', examples: ['https://www.maplehollow.example.com'] },
      uniqueItems: true,
    },
    leadStatuses: {
      type: 'array',
      title: 'Lead statuses',
      description:
        'The steps the sales team marks each registration with on the leads page, in order. The first is where every new registration starts. Without this list: New, Contacted, Appointment booked, Purchased, Not interested.',
      items: { type: 'string', minLength: 1, maxLength: 40, pattern: '\\S' },
      minItems: 2,
      maxItems: 12,
      uniqueItems: true,
      examples: [['New', 'Contacted', 'Appointment booked', 'Purchased', 'Not interested']],
    },
    countVisits: {
      type: 'boolean',
      title: 'Count visits',
      description:
        "Whether the server counts visits to this launch's pages for the leads page's dashboard (registrations per visitor). It sets no cookie, adds no script and keeps only each day's totals. On unless false; while it is on, the privacy page says so in a paragraph of its own.",
      default: true,
    },
    roster: {
      type: 'array',
      title: 'Salespeople in turn',
      description:
        "The salespeople who take this launch's buyers in turn: each new registration of a buyer is assigned to the next one (round robin, counted by the database, so two servers never give one turn twice), shows as assigned to them on the leads page (by their name, with their e-mail where one is chosen) and is sent to them by e-mail with a link to it on the leads page. A realtor's registration goes to the co-op desk (launch.realtorEmail) instead. Without a roster (or with an empty one) new registrations stay unassigned and the notification says so.",
      items: {
        type: 'object',
        title: 'Salesperson',
        description: 'One salesperson of the roster: their name and the e-mail address their new buyers are sent to.',
        properties: {
          name: {
            type: 'string',
            minLength: 1,
            maxLength: 80,
            pattern: '\\S',
            title: 'Name',
            description: "The salesperson's name, as the e-mail they get greets them: not empty.",
            examples: ['Alex Martin'],
          },
          email: {
            type: 'string',
            format: 'email',
            title: 'E-mail',
            description:
              'Where their new registrations are sent; also how the leads page knows them (a studio account with the same e-mail is the same person, shown by this name).',
            examples: ['alex@example.com'],
          },
        },
        required: ['name', 'email'],
        additionalProperties: false,
      },
      maxItems: 50,
      examples: [
        [
          { name: 'Alex Martin', email: 'alex@example.com' },
          { name: 'Sam Chen', email: 'sam@example.com' },
        ],
      ],
    },
    morningSummary: {
      type: 'object',
      title: 'Morning summary',
      description:
        "A summary e-mailed to the sales manager once a day: the day before's registrations (buyers and realtors), where they came from (the dashboard's sources) and the last seven days, day by day. Days are this launch's (launch.timeZone, else the server's NOTIFY_TIME_ZONE). Sent by the Node server once a day, whatever the number of servers or restarts. Off without this setting.",
      properties: {
        to: {
          type: 'string',
          format: 'email',
          title: 'Send to',
          description:
            "Who gets the summary. Without it, the launch's notification address (launch.notifyEmail, else the site's contact e-mail; NOTIFY_EMAIL overrides both).",
          examples: ['manager@example.com'],
        },
        at: {
          type: 'string',
          pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
          title: 'Time',
          description:
            "From what time of the morning it goes (HH:MM, 24-hour clock, in the launch's time zone). Without it, 07:30. A server started later that day sends it at start.",
          default: '07:30',
          examples: ['07:30'],
        },
      },
      additionalProperties: false,
      examples: [{ to: 'manager@example.com', at: '07:30' }],
    },
    timeZone: {
      type: 'string',
      minLength: 1,
      title: 'Time zone',
      description:
        "Where the launch is, as a time zone name: the phases' start times are read as clocks there, and the morning summary's days and time. Without it, the server's NOTIFY_TIME_ZONE (America/Toronto unless set).",
      examples: ['America/Toronto', 'America/Vancouver'],
    },
  },
  required: ['slug'],
  additionalProperties: false,
} as const satisfies JSONSchema
export type LaunchConfig = FromConfigSchema<typeof launchSchema>

/** The whole page.config.json. */
export const pageConfigSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://example.com/schema/page-config.schema.json',
  type: 'object',
  title: 'Page configuration',
  description:
    'Everything that belongs to one development: texts, images, order of sections, search tags and the form.',
  properties: {
    $schema: { type: 'string', title: 'Schema', description: 'Lets the editor check this file. Keep it as it is.' },
    configVersion: {
      type: 'integer',
      const: currentConfigVersion,
      title: 'Config format version',
      description:
        'The version of the config format this file is written in. npm run migrate updates an older file; do not change it by hand.',
    },
    launch: launchSchema,
    site: siteSchema,
    seo: seoSchema,
    header: headerSchema,
    sections: sectionsSchema,
    footer: footerSchema,
    modal: modalSchema,
    form: formSchema,
    notFound: notFoundSchema,
    reply: replySchema,
    privacy: privacySchema,
    phases: phasesSchema,
    documents: documentsSchema,
  },
  required: ['configVersion', 'launch', 'site', 'seo', 'header', 'sections', 'footer', 'modal', 'form', 'notFound'],
  additionalProperties: false,
} as const

/** A validated page configuration. */
export type PageConfig = {
  configVersion: typeof currentConfigVersion
  launch: LaunchConfig
  site: Site
  seo: Seo
  header: FromConfigSchema<typeof headerSchema>
  sections: Section[]
  footer: FromConfigSchema<typeof footerSchema>
  modal: ModalProps
  form: FormConfig
  notFound: NotFoundProps
  reply?: ReplyConfig
  privacy?: PrivacyConfig
  phases?: PhasesConfig
  documents?: DocumentsConfig
}

/** The part of the form config the page itself needs (the form's own code brings the rest), and the link beside the consent note. */
export type ClientFormConfig = Pick<FormConfig, 'consent' | 'toasts' | 'noScript'> & {
  privacyLink: { label: string; href: string }
}

/** What only the form's own (lazily loaded) code needs; the page bundle gets the rest of `form`. */
export type FormUi = Pick<FormConfig, 'uiSchema' | 'messages' | 'submitLabel' | 'submittingLabel'>

/** The config as the page's bundle gets it: no head tags (prerendered), and only the page's part of the form. */
export type ClientPageConfig = Omit<PageConfig, 'seo' | 'form' | 'launch' | 'privacy' | 'phases' | 'documents'> & {
  /** The current phase's banner, when it has one (the page is built once per phase: it never decides the phase). */
  banner?: string
  /** The privacy page, every text decided (schema/privacy.ts). */
  privacy: PrivacyPage
  /**
   * Only the slug (the page names its launch to the function) and whether its visits are counted (a page built for a
   * hosted function asks it for a visit image); the notification address stays on the server.
   */
  launch: Pick<PageConfig['launch'], 'slug' | 'countVisits'>
  form: ClientFormConfig
  /** The responsive variants the build made of raster images, by src (see src/build/image-variants.ts). */
  imageVariants?: ImageManifest
}

/** One modern-format alternative of an image, ready for <source type srcset>. */
export type ImageSource = { type: 'image/avif' | 'image/webp'; srcset: string }

/** An image's intrinsic size (after EXIF rotation) and its modern-format sources, best first. */
export type ImageVariants = { width: number; height: number; sources: ImageSource[] }

/** Variants by the image's "src" exactly as the config writes it ("/images/hero.jpg"). SVGs are absent. */
export type ImageManifest = Record<string, ImageVariants>
