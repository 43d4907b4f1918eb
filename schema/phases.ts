import type { JSONSchema } from 'json-schema-to-ts'
import { worksheetWindowSchema, type WorksheetWindow } from './worksheets.ts'
import { eyebrowSchema, headingSchema, hrefSchema, introSchema, stringListSchema } from './parts.ts'

/**
 * A launch's phases (page.config.json `phases`): the stages of its life in order (coming soon, VIP, public, sold
 * out), each writing only what changes, in the same shape as the rest of the file. Schema only: applying a phase to a
 * config is schema/phase-apply.ts, finding the phase of a moment schema/phase-schedule.ts.
 */

/** The most an announcement's subject and text may hold: a phase's announcement and the leads page's form alike. */
export const announcementLimits = { subject: 150, text: 2000 } as const

const text = (title: string, description: string) => ({ type: 'string', minLength: 1, title, description }) as const

/** A button of a phase: only its label, its link or whether it opens the dialog, whichever changes. */
const buttonChangeSchema = {
  type: 'object',
  title: 'Button',
  description:
    'What changes on this button: its label, where it links, or whether it opens the registration dialog. The rest stays as written above.',
  properties: {
    label: { ...text('Label', 'The button text in this phase.'), examples: ['Join the Waitlist'] },
    href: hrefSchema,
    opensModal: {
      type: 'boolean',
      title: 'Opens the registration dialog',
      description: 'true: the button opens the registration dialog.',
    },
  },
  additionalProperties: false,
} as const satisfies JSONSchema

/** One phase: its name, when it starts by itself, and what it changes. */
export const phaseSchema = {
  type: 'object',
  title: 'Phase',
  description:
    'One stage of the launch. Write only what is different in this phase, in the same shape as the rest of the file (e.g. "hero": { "eyebrow": "Now Selling" }); everything you leave out stays as written above.',
  properties: {
    name: {
      type: 'string',
      pattern: '^[a-z][a-z0-9-]{0,39}$',
      title: 'Name',
      description:
        'A short name for the phase (lower-case letters, digits and dashes). It is stored with every registration made in this phase.',
      examples: ['coming-soon', 'vip', 'public', 'sold-out'],
    },
    starts: {
      type: 'string',
      pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}$',
      title: 'Starts',
      description:
        'Optional: the date and time this phase begins by itself, as a clock on the wall reads it where the launch is (launch.timeZone), written "2026-03-14T10:00". At that minute the server shows this phase without anyone publishing. Leave out to start it by hand (change "current").',
      examples: ['2026-03-14T10:00'],
    },
    banner: {
      ...text('Banner', 'Optional: one line shown across the top of the page during this phase.'),
      examples: ['Sold out: join the waitlist for Phase 2'],
    },
    hide: {
      type: 'array',
      title: 'Sections hidden',
      description:
        'Optional: the sections of the page left out during this phase, each named by its "anchor" (a section without one gets one first). Its links in the header and footer are left out with it; the rest of the page shows as written.',
      items: { type: 'string', pattern: '^[a-z][a-z0-9-]*$', description: 'The anchor of a section to hide.' },
      uniqueItems: true,
      examples: [['homes', 'location']],
    },
    header: {
      type: 'object',
      title: 'Header',
      description: 'What changes in the header during this phase.',
      properties: { cta: buttonChangeSchema },
      additionalProperties: false,
    },
    hero: {
      type: 'object',
      title: 'Hero section',
      description: 'What changes in the hero section (the opening banner) during this phase.',
      properties: {
        eyebrow: eyebrowSchema,
        tagline: text('Tagline', 'The line under the heading.'),
        intro: introSchema('The paragraph introducing the development.'),
        cta: buttonChangeSchema,
        bar: {
          type: 'object',
          title: 'Action bar',
          description: 'What changes in the bar under the hero.',
          properties: { hint: text('Hint', 'The sentence in the bar.'), cta: buttonChangeSchema },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
    registration: {
      type: 'object',
      title: 'Registration section',
      description: 'What changes in the registration section (the form on the page) during this phase.',
      properties: {
        eyebrow: eyebrowSchema,
        heading: headingSchema,
        intro: introSchema('The sentence above the form.'),
        points: stringListSchema('What registering gets you', 'The points beside the form.', 'One point.'),
      },
      additionalProperties: false,
    },
    modal: {
      type: 'object',
      title: 'Registration dialog',
      description: 'What changes in the registration dialog during this phase.',
      properties: {
        opensByItself: {
          type: 'boolean',
          title: 'Opens by itself',
          description: 'false: the dialog does not open by itself in this phase (the buttons still open it).',
        },
        title: text('Title', 'The dialog heading.'),
        intro: text('Intro', 'The sentence under the title.'),
      },
      additionalProperties: false,
    },
    form: {
      type: 'object',
      title: 'Registration form',
      description: 'What changes in the form during this phase (its fields stay the same).',
      properties: {
        submitLabel: { ...text('Button label', 'The submit button text.'), examples: ['Join the Waitlist'] },
        submittingLabel: text('Button label while sending', 'Shown while the form is being sent.'),
        toasts: {
          type: 'object',
          title: 'Notices',
          description: 'The notices shown after sending.',
          properties: {
            success: {
              type: 'object',
              title: 'Success notice',
              description: 'Shown when the registration is received.',
              properties: { title: text('Title', 'The first, bold line.'), text: text('Text', 'The line under it.') },
              additionalProperties: false,
            },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
    reply: {
      type: 'object',
      title: 'Reply to the registrant',
      description:
        'What changes in the e-mail registrants receive during this phase. Write {field} for a form field, e.g. {name}; {site} is the development name.',
      properties: {
        subject: text('Subject', 'The subject line.'),
        greeting: text('Greeting', 'The first line.'),
        paragraphs: {
          type: 'array',
          title: 'Paragraphs',
          description: 'The body, one string per paragraph.',
          items: { type: 'string', minLength: 1, description: 'One paragraph.' },
          minItems: 1,
        },
      },
      additionalProperties: false,
    },
    announcement: {
      type: 'object',
      title: 'Announcement to the list',
      description:
        'Optional: a short e-mail the server sends once, when this phase starts by itself ("starts"), to the launch\'s registrants who may receive marketing (express consent, or implied consent under six months old; never those who unsubscribed). It goes with the reply\'s sender, the brokerage\'s contact and each registrant\'s unsubscribe link, so the file needs a "reply". Not sent when the start was more than 24 hours ago by the time the server reads the phase.',
      properties: {
        subject: {
          type: 'string',
          title: 'Subject',
          description: `The subject line, at most ${announcementLimits.subject} characters.`,
          examples: ['Public release: the sales centre opens Saturday at 10'],
        },
        text: {
          type: 'string',
          title: 'Message',
          description: `The message as plain text (no markup, no links of your own), at most ${announcementLimits.text} characters; an empty line starts a new paragraph.`,
          examples: [
            'Pricing and floor plans are public from today. The sales centre is open Saturday and Sunday, 10 to 5.',
          ],
        },
      },
      required: ['subject', 'text'],
      additionalProperties: false,
    },
    worksheets: worksheetWindowSchema,
  },
  required: ['name'],
  additionalProperties: false,
} as const satisfies JSONSchema

/** The launch's phases and which one it is in. */
export const phasesSchema = {
  type: 'object',
  title: 'Phases',
  description:
    'Optional: the stages of the launch in order, e.g. coming soon, VIP, public, sold out. Each phase changes a few words of the page, the form and the reply; "current" says which phase the launch is in. A phase with a start time takes over by itself at that time.',
  properties: {
    current: {
      type: 'string',
      title: 'Current phase',
      description:
        'The name of the phase the launch is in now (one of the list). A later phase whose start time has come takes over from it by itself.',
      examples: ['vip'],
    },
    list: {
      type: 'array',
      title: 'The phases, in order',
      description: 'Every phase, first to last.',
      minItems: 1,
      maxItems: 12,
      items: phaseSchema,
    },
  },
  required: ['current', 'list'],
  additionalProperties: false,
} as const satisfies JSONSchema

type Button = { label?: string; href?: string; opensModal?: boolean }

/** What one phase changes (every part optional: only what changes is written). */
export type Phase = {
  name: string
  starts?: string
  banner?: string
  /** The anchors of the sections this phase leaves out (schema/phase-apply.ts). */
  hide?: string[]
  header?: { cta?: Button }
  hero?: { eyebrow?: string; tagline?: string; intro?: string; cta?: Button; bar?: { hint?: string; cta?: Button } }
  registration?: { eyebrow?: string; heading?: string; intro?: string; points?: string[] }
  modal?: { opensByItself?: boolean; title?: string; intro?: string }
  form?: { submitLabel?: string; submittingLabel?: string; toasts?: { success?: { title?: string; text?: string } } }
  reply?: { subject?: string; greeting?: string; paragraphs?: string[] }
  /** Sent once to the list when the phase starts by itself (delivery/phase-announcements.ts). */
  announcement?: { subject: string; text: string }
  /** When realtors may send worksheets in this phase (schema/worksheets.ts). */
  worksheets?: WorksheetWindow
}

/** page.config.json `phases`. */
export type PhasesConfig = { current: string; list: Phase[] }
