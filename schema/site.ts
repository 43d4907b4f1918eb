import type { JSONSchema } from 'json-schema-to-ts'
import { imageSchema, type FromConfigSchema } from './parts.ts'

/**
 * What a brokerage's registered name must contain: the word "Brokerage" (RECO registers names such as "Example Realty
 * Inc., Brokerage"), in any case.
 */
export const brokerageNamePattern = '\\b[Bb][Rr][Oo][Kk][Ee][Rr][Aa][Gg][Ee]\\b'

/** The words of the page a launch shows before it is published, where the config gives none. */
export const unpublishedPageDefaults = {
  title: '{site}: not published yet',
  text: 'This site is not published yet. Please come back soon.',
} as const

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
    unpublished: {
      type: 'object',
      title: 'Not published yet',
      description:
        "The page the site's addresses show before its first version is published. {site} is the development name. (A launch whose config cannot be read shows the defaults.)",
      properties: {
        title: {
          type: 'string',
          minLength: 1,
          title: 'Page title',
          description: 'The browser tab title.',
          default: unpublishedPageDefaults.title,
        },
        text: {
          type: 'string',
          minLength: 1,
          title: 'Text',
          description: 'The line under the development name.',
          default: unpublishedPageDefaults.text,
        },
      },
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
