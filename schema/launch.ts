import type { JSONSchema } from 'json-schema-to-ts'
import type { FromConfigSchema } from './parts.ts'

/**
 * The follow-up statuses of the leads page when a launch names none (launch.leadStatuses): the first is every new
 * lead's.
 */
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
