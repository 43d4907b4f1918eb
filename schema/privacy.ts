import type { JSONSchema } from 'json-schema-to-ts'
import type { FromConfigSchema } from './parts.ts'
import { formFieldNames, formFieldSchemas } from './registration-rules.ts'

/** Where every launch's privacy page is (the build writes it as privacy.html; hosts serve it at /privacy). */
export const privacyPagePath = '/privacy'

const text = (title: string, description: string) => ({ type: 'string', minLength: 1, title, description }) as const

/**
 * The privacy page of a launch (page.config.json `privacy`): every text optional, each default made from the config.
 */
export const privacySchema = {
  type: 'object',
  title: 'Privacy page',
  description:
    "The page at /privacy that says who collects what the form asks for, why, for how long, and how to withdraw or ask for access and erasure (Canada's PIPEDA and CASL). It is linked beside the form's consent note, in the footer of every page and in every reply. A launch whose form collects personal data must have this block; every text in it is optional, and a text left out is written from the rest of the config (the brokerage, its e-mail, the form's labels). Read the page once built, and have the brokerage approve it.",
  properties: {
    linkLabel: {
      ...text(
        'Link label',
        'The name of the link to this page, in the footer, beside the consent note and in the reply. Default: "Privacy".',
      ),
      examples: ['Privacy'],
    },
    title: {
      ...text('Title', 'The page\'s heading and browser tab title. Default: "Privacy policy".'),
      examples: ['Privacy policy'],
    },
    intro: text('Introduction', 'The sentence under the heading. Default: who runs the page, and what the page tells.'),
    who: text(
      'Who collects it',
      'Who collects the registrations. Default: the brokerage (site.brokerage), for the development; its contacts follow.',
    ),
    what: text(
      'What is collected',
      'The sentence before the list of the form\'s fields (listed by their labels). Default: "When you register, we keep what you type in the form:".',
    ),
    whatElse: text(
      'What else is kept',
      "What is kept with each registration besides the fields. Default: the time, the page and the campaign that led there, the browser's description and the consent note shown.",
    ),
    why: text(
      'Why',
      'What the information is used for. Default: to answer the registration and to contact the registrant about the development.',
    ),
    howLong: text(
      'How long',
      'How long a registration is kept. Default: from retentionDays when given, else "only as long as needed to keep you informed".',
    ),
    retentionDays: {
      type: 'integer',
      minimum: 1,
      maximum: 3650,
      title: 'Kept for (days)',
      description:
        "Optional: how many days a registration is kept before it is erased, as the page states it. Set the server's RETENTION_DAYS to the same number: that is what erases them.",
      examples: [730],
    },
    choices: text(
      'Withdraw, access, erasure',
      'How to withdraw consent and ask to see, correct or erase the information. Default: the unsubscribe link of every e-mail, or a message to the privacy e-mail.',
    ),
    email: {
      type: 'string',
      format: 'email',
      title: 'Privacy e-mail',
      description:
        'Where to write to withdraw or ask for access or erasure. Default: reply.brokerage.email, else site.email.',
      examples: ['privacy@example.com'],
    },
    backLabel: text(
      'Link back',
      'The link from this page to the home page. Default: "Back to" and the development\'s name.',
    ),
    headings: {
      type: 'object',
      title: 'Headings',
      description: 'The heading of each part of the page, when the default words do not suit.',
      properties: {
        who: text('Who', 'Default: "Who collects your information".'),
        what: text('What', 'Default: "What we collect".'),
        why: text('Why', 'Default: "Why we collect it".'),
        howLong: text('How long', 'Default: "How long we keep it".'),
        choices: text('Your choices', 'Default: "Withdraw your consent, see or erase your information".'),
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const satisfies JSONSchema
export type PrivacyConfig = FromConfigSchema<typeof privacySchema>

/** One part of the privacy page: a heading, paragraphs, and (for "what") the form's fields by their labels. */
export type PrivacySection = {
  id: 'who' | 'what' | 'why' | 'how-long' | 'visits' | 'choices'
  heading: string
  paragraphs: string[]
  items?: string[]
  after?: string[]
}

/** The privacy page with every text decided: the config's words, or defaults made from the config's own data. */
export type PrivacyPage = {
  linkLabel: string
  title: string
  intro: string
  backLabel: string
  sections: PrivacySection[]
  /** Shown under "who": how to reach the brokerage. */
  contact: { brokerage: string; mailingAddress?: string; email: string; phone?: { display: string; dial: string } }
}

/** What privacyPageOf reads of a config (a PageConfig has all of it). */
export type PrivacySource = {
  launch?: { countVisits?: boolean | undefined } | undefined
  site: { name: string; brokerage: string; email: string; phone: { display: string; dial: string } }
  form: { schema: unknown; uiSchema?: Record<string, unknown> }
  reply?: { brokerage: { mailingAddress: string; email: string } } | undefined
  privacy?: PrivacyConfig | undefined
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The form's fields in the order a visitor sees them, each with its schema and the label the visitor reads ("ui:title",
 * else the schema's title, else the name).
 */
export function orderedFormFields(
  form: PrivacySource['form'],
): Array<{ field: string; label: string; schema: Record<string, unknown> }> {
  const fields = formFieldNames(form.schema)
  const order = form.uiSchema?.['ui:order']
  const first = Array.isArray(order)
    ? order.filter((f): f is string => typeof f === 'string' && fields.includes(f))
    : []
  const schemas = formFieldSchemas(form.schema)
  return [...first, ...fields.filter((f) => !first.includes(f))].map((field) => {
    const ui = form.uiSchema?.[field]
    const uiTitle = isObject(ui) ? ui['ui:title'] : undefined
    const schema = schemas.get(field) ?? {}
    const label =
      typeof uiTitle === 'string' && uiTitle.trim()
        ? uiTitle
        : typeof schema.title === 'string' && schema.title.trim()
          ? schema.title
          : field
    // The required-marker asterisk is the form's, not part of what is collected.
    return { field, label: label.replace(/\s*\*+\s*$/, '').trim() || field, schema }
  })
}

/** "730 days (about 2 years)": a retention period in words. */
function daysInWords(days: number): string {
  const years = days / 365
  const months = Math.round(days / 30.4)
  const about =
    years >= 1 && Math.abs(years - Math.round(years)) < 0.05
      ? ` (about ${Math.round(years)} year${Math.round(years) === 1 ? '' : 's'})`
      : months >= 2 && days % 7 !== 0
        ? ` (about ${months} months)`
        : ''
  return `${days} day${days === 1 ? '' : 's'}${about}`
}

/** The privacy page of a config: its `privacy` block's words, each missing one written from the rest of the config. */
export function privacyPageOf(config: PrivacySource): PrivacyPage {
  const own = config.privacy ?? {}
  const { site } = config
  const email = own.email ?? config.reply?.brokerage.email ?? site.email
  const headings = own.headings ?? {}
  const howLong =
    own.howLong ??
    (own.retentionDays !== undefined
      ? `We keep your registration for ${daysInWords(own.retentionDays)} after you send it. Then it is erased, with the e-mails about it. You can ask us to erase it sooner at any time.`
      : `We keep your registration only as long as we need it to keep you informed about ${site.name}. You can ask us to erase it at any time.`)
  return {
    linkLabel: own.linkLabel ?? 'Privacy',
    title: own.title ?? 'Privacy policy',
    intro:
      own.intro ??
      `${site.brokerage} runs this page for ${site.name}. Here is what we collect when you register, why, how long we keep it, and how to change your mind.`,
    backLabel: own.backLabel ?? `Back to ${site.name}`,
    sections: [
      {
        id: 'who',
        heading: headings.who ?? 'Who collects your information',
        paragraphs: [
          own.who ??
            `${site.brokerage} collects the registrations made on this page for ${site.name}. You can reach us here:`,
        ],
      },
      {
        id: 'what',
        heading: headings.what ?? 'What we collect',
        paragraphs: [own.what ?? 'When you register, we keep what you type in the form:'],
        items: orderedFormFields(config.form).map((entry) => entry.label),
        after: [
          own.whatElse ??
            "With it we keep when you sent it, the page you sent it from and the page or campaign that brought you there, your browser's description, and the consent note shown beside the form.",
        ],
      },
      {
        id: 'why',
        heading: headings.why ?? 'Why we collect it',
        paragraphs: [
          own.why ??
            `To answer your registration: to send you the information you asked for about ${site.name}, and to contact you about it.`,
        ],
      },
      { id: 'how-long', heading: headings.howLong ?? 'How long we keep it', paragraphs: [howLong] },
      // Generated, not config text: it says what the server does while launch.countVisits is on, and goes with it.
      ...(config.launch?.countVisits === false
        ? []
        : [
            {
              id: 'visits' as const,
              heading: 'Counting visits',
              paragraphs: [
                "We count visits to this page to know how many people it reaches. No cookie is set and nothing is added to your browser. Each day, your internet address and browser description are turned into a code that cannot be turned back, used only to count that day's visitors once, and forgotten when the day ends. We keep only the day's totals, never who visited.",
              ],
            },
          ]),
      {
        id: 'choices',
        heading: headings.choices ?? 'Withdraw your consent, see or erase your information',
        paragraphs: [
          own.choices ??
            `You can stop our messages at any time with the unsubscribe link in each of our e-mails, or by writing to ${email}. To see what we hold about you, to correct it, or to have it erased, write to ${email}.`,
        ],
      },
    ],
    contact: {
      brokerage: site.brokerage,
      ...(config.reply ? { mailingAddress: config.reply.brokerage.mailingAddress } : {}),
      email,
      phone: site.phone,
    },
  }
}
