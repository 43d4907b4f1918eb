import type { JSONSchema } from 'json-schema-to-ts'
import { leftTextDefaults } from './left-texts.ts'
import {
  ctaSchema,
  headingSchema,
  imageSchema,
  introSchema,
  linkSchema,
  paragraphsSchema,
  sectionBaseProperties,
  stringListSchema,
  titledItemsSchema,
  toneSchema,
  type FromConfigSchema,
} from './parts.ts'

/** The sticky page header: logo, anchor links, phone link and a Register button. */
export const headerSchema = {
  type: 'object',
  title: 'Header',
  description: 'The sticky bar at the top of the page.',
  properties: {
    logo: imageSchema,
    navLabel: {
      type: 'string',
      minLength: 1,
      title: 'Navigation name',
      description: 'What screen readers call the link list, e.g. "Main".',
      examples: ['Main'],
    },
    links: {
      type: 'array',
      title: 'Links',
      description: 'Links to sections of the page, in order.',
      items: linkSchema,
      maxItems: 6,
    },
    phoneLabel: {
      type: 'string',
      minLength: 1,
      title: 'Phone link label',
      description: 'Read to screen readers before the phone number, e.g. "Call".',
      examples: ['Call'],
    },
    cta: ctaSchema,
  },
  required: ['logo', 'navLabel', 'links', 'phoneLabel', 'cta'],
  additionalProperties: false,
} as const satisfies JSONSchema
export type HeaderProps = FromConfigSchema<typeof headerSchema>

/** The footer of every page: copyright and disclaimer lines, links. */
export const footerSchema = {
  type: 'object',
  title: 'Footer',
  description: 'The bottom of the page.',
  properties: {
    copyright: {
      type: 'string',
      minLength: 1,
      title: 'Copyright line',
      description:
        'The copyright line. Write {year} for the year the page is built (it then stays current with each build), or write a year to fix it. The footer also shows the link to the privacy page, and site.brokerage on a line of its own when no footer line names it.',
      examples: ['© {year} Example Realty Inc., Brokerage. All rights reserved.'],
    },
    disclaimers: stringListSchema('Disclaimers', 'Legal lines, one string per line.', 'One disclaimer line.'),
    links: {
      type: 'array',
      title: 'Links',
      description: 'Optional links shown in the footer.',
      items: linkSchema,
    },
  },
  required: ['copyright', 'disclaimers'],
  additionalProperties: false,
} as const satisfies JSONSchema
export type FooterProps = FromConfigSchema<typeof footerSchema>

/** The opening banner: the development's name (the page's only h1), tagline, intro and a bar of actions. */
export const heroSchema = {
  type: 'object',
  title: 'Hero section',
  description: 'The large opening banner. Holds the only main heading of the page.',
  properties: {
    ...sectionBaseProperties('hero'),
    heading: { ...headingSchema, description: 'The main heading of the page: usually the development name.' },
    tagline: {
      type: 'string',
      minLength: 1,
      title: 'Tagline',
      description: 'One line under the heading.',
      examples: ['Room to grow, five minutes from Main Street.'],
    },
    intro: introSchema('A short paragraph introducing the development.'),
    image: imageSchema,
    cta: ctaSchema,
    bar: {
      type: 'object',
      title: 'Action bar',
      description: 'The bar under the hero with a call link, a hint and a register button.',
      properties: {
        callLabel: {
          type: 'string',
          minLength: 1,
          title: 'Call label',
          description: 'Text of the phone link.',
          examples: ['Call Now'],
        },
        hint: { type: 'string', minLength: 1, title: 'Hint', description: 'A sentence on what registering gets you.' },
        cta: ctaSchema,
      },
      required: ['callLabel', 'hint', 'cta'],
      additionalProperties: false,
    },
  },
  required: ['type', 'heading', 'tagline', 'intro', 'image', 'cta', 'bar'],
  additionalProperties: false,
} as const satisfies JSONSchema

/** A general text section with an optional image, bullet list and button. */
export const featureSchema = {
  type: 'object',
  title: 'Feature section',
  description: 'A heading with paragraphs, and optionally an image, a bullet list, figures and a button.',
  properties: {
    ...sectionBaseProperties('feature'),
    body: paragraphsSchema,
    bullets: stringListSchema('Bullet list', 'Optional short points shown as a list.', 'One point.'),
    facts: {
      type: 'array',
      title: 'Figures',
      description: 'Optional key figures, e.g. { "value": "3–5", "label": "bedrooms" }.',
      items: {
        type: 'object',
        title: 'Figure',
        description: 'One key figure and what it counts.',
        properties: {
          value: { type: 'string', minLength: 1, title: 'Figure', description: 'The figure, e.g. "45\'".' },
          label: { type: 'string', minLength: 1, title: 'Label', description: 'What the figure counts.' },
        },
        required: ['value', 'label'],
        additionalProperties: false,
      },
      maxItems: 4,
    },
    image: imageSchema,
    imagePosition: {
      type: 'string',
      enum: ['start', 'end'],
      default: 'end',
      title: 'Image position',
      description: 'Image before ("start") or after ("end") the text on wide screens.',
    },
    tone: toneSchema,
    cta: ctaSchema,
  },
  required: ['type', 'heading', 'body'],
  additionalProperties: false,
} as const satisfies JSONSchema

/** Cards for the home models on offer. */
export const homeTypesSchema = {
  type: 'object',
  title: 'Home types section',
  description: 'One card per home type, with an image and its key facts.',
  properties: {
    ...sectionBaseProperties('home-types'),
    intro: introSchema(),
    cards: {
      type: 'array',
      title: 'Cards',
      description: 'The home types, in order.',
      minItems: 1,
      items: {
        type: 'object',
        title: 'Home type',
        description: 'One card: the home type, a badge, a summary, details and an image.',
        properties: {
          name: { type: 'string', minLength: 1, title: 'Name', description: 'The home type, e.g. "40\' Detached".' },
          badge: {
            type: 'string',
            minLength: 1,
            title: 'Badge',
            description: 'A short tag on the card, e.g. "3–4 Bedrooms".',
          },
          summary: { type: 'string', minLength: 1, title: 'Summary', description: 'One or two sentences.' },
          details: stringListSchema('Details', 'Short facts, one per line.', 'One fact.'),
          image: imageSchema,
          models: {
            type: 'array',
            title: 'Models counted',
            description:
              'The inventory\'s models this card counts, e.g. ["Maple", "Birch"]: once the launch has lots, the card shows how many are left (leftTexts). Names as in the price list.',
            items: { type: 'string', minLength: 1, title: 'Model', description: 'A model of the price list.' },
            minItems: 1,
            uniqueItems: true,
          },
        },
        required: ['name', 'summary', 'image'],
        additionalProperties: false,
      },
    },
    leftTexts: {
      type: 'object',
      title: 'Lots left',
      description: 'The words of a card that counts models (cards[].models), read live from the inventory.',
      properties: {
        left: {
          type: 'string',
          minLength: 1,
          default: leftTextDefaults.left,
          title: 'Left',
          description: 'What a card shows while lots are left; {count} is the number.',
        },
        soldOut: {
          type: 'string',
          minLength: 1,
          default: leftTextDefaults.soldOut,
          title: 'Sold out',
          description: 'What a card shows when none of its models is left.',
        },
      },
      additionalProperties: false,
    },
    cta: ctaSchema,
  },
  required: ['type', 'heading', 'cards'],
  additionalProperties: false,
} as const satisfies JSONSchema

/** Drive times from the site to nearby places. */
export const driveTimesSchema = {
  type: 'object',
  title: 'Drive times section',
  description: 'The location, with drive times to what is nearby.',
  properties: {
    ...sectionBaseProperties('drive-times'),
    body: paragraphsSchema,
    items: {
      type: 'array',
      title: 'Drive times',
      description: 'One entry per kind of destination.',
      minItems: 1,
      items: {
        type: 'object',
        title: 'Drive time',
        description: 'A kind of destination and how long the drive takes.',
        properties: {
          label: { type: 'string', minLength: 1, title: 'Destination', description: 'E.g. "Schools".' },
          time: { type: 'string', minLength: 1, title: 'Time', description: 'E.g. "1–8 min".' },
          examples: { type: 'string', minLength: 1, title: 'Examples', description: 'Named places, optional.' },
        },
        required: ['label', 'time'],
        additionalProperties: false,
      },
    },
    image: imageSchema,
    tone: toneSchema,
  },
  required: ['type', 'heading', 'items'],
  additionalProperties: false,
} as const satisfies JSONSchema

/** A list of reasons, each with a title and a sentence. */
export const checklistSchema = {
  type: 'object',
  title: 'Checklist section',
  description: 'A list of reasons or advantages, each with a short title and text.',
  properties: {
    ...sectionBaseProperties('checklist'),
    intro: introSchema(),
    items: titledItemsSchema('Items', 'The reasons, in order.'),
    tone: toneSchema,
  },
  required: ['type', 'heading', 'items'],
  additionalProperties: false,
} as const satisfies JSONSchema

/** A section with text and a grid of highlights, e.g. the builder's. */
export const highlightsSchema = {
  type: 'object',
  title: 'Highlights section',
  description: 'Paragraphs followed by a grid of highlights, e.g. about the builder.',
  properties: {
    ...sectionBaseProperties('highlights'),
    body: paragraphsSchema,
    items: titledItemsSchema('Highlights', 'The highlights, in order.'),
    tone: toneSchema,
  },
  required: ['type', 'heading', 'items'],
  additionalProperties: false,
} as const satisfies JSONSchema

/** The inline registration form; its fields come from the page's "form". */
export const registrationSchema = {
  type: 'object',
  title: 'Registration section',
  description: 'The VIP registration form on the page. The form itself is set in "form" at the top of the file.',
  properties: {
    ...sectionBaseProperties('registration'),
    intro: introSchema('A sentence above the form.'),
    points: stringListSchema('What registering gets you', 'Short points shown beside the form.', 'One point.'),
    tone: toneSchema,
  },
  required: ['type', 'anchor', 'heading'],
  additionalProperties: false,
} as const satisfies JSONSchema

/** Contact cards: phone, e-mail and location. */
export const contactSchema = {
  type: 'object',
  title: 'Contact section',
  description: 'Cards with the phone number, the e-mail address and the location.',
  properties: {
    ...sectionBaseProperties('contact'),
    intro: introSchema(),
    cards: {
      type: 'array',
      title: 'Cards',
      description: 'Phone and e-mail cards show the numbers from "site"; a location card shows its own text.',
      minItems: 1,
      items: {
        type: 'object',
        title: 'Contact card',
        description: 'One card: phone, e-mail or location.',
        properties: {
          kind: {
            type: 'string',
            enum: ['phone', 'email', 'location'],
            title: 'Kind',
            description: '"phone" and "email" link to the site phone and e-mail; "location" shows "text".',
          },
          title: { type: 'string', minLength: 1, title: 'Title', description: 'The card title, e.g. "Call Us".' },
          text: {
            type: 'string',
            minLength: 1,
            title: 'Text',
            description: 'Text under the title (the address, for a location card).',
          },
        },
        required: ['kind', 'title'],
        additionalProperties: false,
      },
    },
    tone: toneSchema,
  },
  required: ['type', 'heading', 'cards'],
  additionalProperties: false,
} as const satisfies JSONSchema

/** Every section type, keyed by the "type" written in page.config.json. */
export const sectionSchemas = {
  hero: heroSchema,
  feature: featureSchema,
  'home-types': homeTypesSchema,
  'drive-times': driveTimesSchema,
  checklist: checklistSchema,
  highlights: highlightsSchema,
  registration: registrationSchema,
  contact: contactSchema,
} as const

/** A section "type" name. */
export type SectionType = keyof typeof sectionSchemas

/** The props of one section type, derived from its schema. */
export type SectionPropsByType = { [K in SectionType]: FromConfigSchema<(typeof sectionSchemas)[K]> }

/** Any section of the page. */
export type Section = SectionPropsByType[SectionType]

/** The sections array: "type" picks which section schema applies, so errors speak of that type only. */
export const sectionsSchema = {
  type: 'array',
  title: 'Sections',
  description: 'The sections of the page between header and footer, in the order they appear.',
  minItems: 1,
  items: {
    type: 'object',
    title: 'Section',
    description: 'One section of the page. Its "type" decides which other fields it takes.',
    required: ['type'],
    properties: {
      type: {
        type: 'string',
        title: 'Section type',
        description: 'Which kind of section this is. It decides which other fields the section takes.',
        enum: Object.keys(sectionSchemas) as SectionType[],
      },
    },
    allOf: Object.entries(sectionSchemas).map(([type, schema]) => ({
      if: { properties: { type: { const: type } }, required: ['type'] },
      then: schema,
    })),
  },
} as const
